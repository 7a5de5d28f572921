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

    /// The part at (`x`, `y`) of `w` by `h` pixels; `None` when it does not lie inside.
    pub fn cut(&self, x: u32, y: u32, w: u32, h: u32) -> Option<RgbImage> {
        if u64::from(x) + u64::from(w) > u64::from(self.width)
            || u64::from(y) + u64::from(h) > u64::from(self.height)
        {
            return None;
        }
        let row = self.width as usize * 3;
        let mut pixels = Vec::with_capacity(w as usize * h as usize * 3);
        for line in self.pixels.chunks(row).skip(y as usize).take(h as usize) {
            pixels.extend_from_slice(&line[x as usize * 3..(x + w) as usize * 3]);
        }
        Some(RgbImage {
            width: w,
            height: h,
            pixels,
        })
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

/// Shrinks an image to `width` pixels wide by averaging boxes of pixels.
pub fn shrink(image: &RgbImage, width: u32) -> RgbImage {
    if image.width <= width {
        return image.clone();
    }
    let height =
        (u64::from(image.height) * u64::from(width) / u64::from(image.width)).max(1) as u32;
    let mut pixels = Vec::with_capacity((width * height * 3) as usize);
    for y in 0..height {
        let (y0, y1) = span(y, height, image.height);
        for x in 0..width {
            let (x0, x1) = span(x, width, image.width);
            let mut sum = [0u32; 3];
            for sy in y0..y1 {
                let row = (sy * image.width) as usize * 3;
                for sx in x0..x1 {
                    let i = row + sx as usize * 3;
                    sum[0] += u32::from(image.pixels[i]);
                    sum[1] += u32::from(image.pixels[i + 1]);
                    sum[2] += u32::from(image.pixels[i + 2]);
                }
            }
            let n = (y1 - y0) * (x1 - x0);
            pixels.extend(sum.map(|s| (s / n) as u8));
        }
    }
    RgbImage {
        width,
        height,
        pixels,
    }
}

/// The source range that shrunken coordinate `i` of `small` covers in `large`.
pub fn span(i: u32, small: u32, large: u32) -> (u32, u32) {
    let start = (u64::from(i) * u64::from(large) / u64::from(small)) as u32;
    let end = (u64::from(i + 1) * u64::from(large) / u64::from(small)) as u32;
    (start, end.max(start + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinking_averages_boxes() {
        let image = RgbImage {
            width: 4,
            height: 2,
            pixels: [[0u8, 0, 0], [200, 200, 200], [10, 20, 30], [10, 20, 30]]
                .repeat(2)
                .concat(),
        };
        let small = shrink(&image, 2);
        assert_eq!((small.width, small.height), (2, 1));
        assert_eq!(small.pixels, [100, 100, 100, 10, 20, 30]);
    }

    #[test]
    fn a_cut_keeps_its_rows_and_refuses_what_lies_outside() {
        let image = RgbImage {
            width: 3,
            height: 2,
            pixels: (0..18).collect(),
        };
        let cut = image.cut(1, 1, 2, 1).unwrap();
        assert_eq!((cut.width, cut.height), (2, 1));
        assert_eq!(cut.pixels, [12, 13, 14, 15, 16, 17]);
        assert_eq!(image.cut(0, 0, 3, 2).unwrap(), image);
        assert!(image.cut(2, 0, 2, 1).is_none());
        assert!(image.cut(0, 2, 1, 1).is_none());
    }

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
