//! Captured pixels and their PNG encoding.

/// An 8-bit RGB image, rows top to bottom, no padding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RgbImage {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width * height * 3` bytes.
    pub pixels: Vec<u8>,
}

impl RgbImage {
    /// The pixel at (x, y).
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = ((y * self.width + x) * 3) as usize;
        [self.pixels[i], self.pixels[i + 1], self.pixels[i + 2]]
    }

    /// Encodes as PNG, tuned for speed: screenshots are taken often and read once.
    ///
    /// `Compression::Fast` is fdeflate's single-pass encoder with the adaptive row filter, which
    /// keeps flat UI areas small at a fraction of zlib's cost.
    pub fn to_png(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pixels.len() / 8);
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(png::Compression::Fast);
        encoder.set_filter(png::Filter::Adaptive);
        let mut writer = encoder
            .write_header()
            .expect("writing a PNG header to memory cannot fail");
        writer
            .write_image_data(&self.pixels)
            .expect("pixel buffer matches the declared size");
        writer
            .finish()
            .expect("finishing a PNG in memory cannot fail");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trips() {
        let (width, height) = (7u32, 5u32);
        let pixels: Vec<u8> = (0..width * height * 3)
            .map(|i| (i * 37 % 251) as u8)
            .collect();
        let image = RgbImage {
            width,
            height,
            pixels,
        };
        let png = image.to_png();
        let decoder = png::Decoder::new(std::io::Cursor::new(png));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height), (width, height));
        assert_eq!(&buf[..info.buffer_size()], &image.pixels[..]);
    }
}
