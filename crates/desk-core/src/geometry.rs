//! Desk coordinates: screen pixels, origin at the top left of the screen.

use serde::{Deserialize, Serialize};

/// A rectangle in desk coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rect {
    /// Left edge.
    pub x: i32,
    /// Top edge.
    pub y: i32,
    /// Width in pixels.
    pub w: u32,
    /// Height in pixels.
    pub h: u32,
}

impl Rect {
    /// A rectangle from its corner and size.
    pub const fn new(x: i32, y: i32, w: u32, h: u32) -> Self {
        Self { x, y, w, h }
    }

    /// One past the right edge.
    pub fn right(&self) -> i64 {
        i64::from(self.x) + i64::from(self.w)
    }

    /// One past the bottom edge.
    pub fn bottom(&self) -> i64 {
        i64::from(self.y) + i64::from(self.h)
    }

    /// Whether `other` lies wholly inside this rectangle.
    pub fn contains_rect(&self, other: &Rect) -> bool {
        other.x >= self.x
            && other.y >= self.y
            && other.right() <= self.right()
            && other.bottom() <= self.bottom()
    }

    /// How far `inner` sits inside this rectangle on each side: left, right, top, bottom
    /// (a window manager's decorations around a client area); 0 where it reaches past.
    pub fn insets(&self, inner: &Rect) -> [u32; 4] {
        let gap = |outer: i64, inner: i64| (outer - inner).max(0) as u32;
        [
            gap(i64::from(inner.x), i64::from(self.x)),
            gap(self.right(), inner.right()),
            gap(i64::from(inner.y), i64::from(self.y)),
            gap(self.bottom(), inner.bottom()),
        ]
    }

    /// Whether the point lies inside this rectangle.
    pub fn contains_point(&self, x: i32, y: i32) -> bool {
        x >= self.x && y >= self.y && i64::from(x) < self.right() && i64::from(y) < self.bottom()
    }

    /// The overlap of two rectangles, if they overlap at all.
    pub fn intersect(&self, other: &Rect) -> Option<Rect> {
        let x = self.x.max(other.x);
        let y = self.y.max(other.y);
        let right = self.right().min(other.right());
        let bottom = self.bottom().min(other.bottom());
        (right > i64::from(x) && bottom > i64::from(y)).then(|| {
            Rect::new(
                x,
                y,
                (right - i64::from(x)) as u32,
                (bottom - i64::from(y)) as u32,
            )
        })
    }
}

impl std::fmt::Display for Rect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{} at ({}, {})", self.w, self.h, self.x, self.y)
    }
}

#[cfg(test)]
mod tests {
    use super::Rect;

    #[test]
    fn insets_are_the_gaps_on_each_side() {
        let outer = Rect::new(10, 20, 100, 80);
        assert_eq!(outer.insets(&Rect::new(12, 50, 90, 48)), [2, 8, 30, 2]);
        assert_eq!(outer.insets(&Rect::new(0, 0, 200, 200)), [0, 0, 0, 0]);
    }

    #[test]
    fn intersect_and_contain() {
        let screen = Rect::new(0, 0, 1920, 1080);
        let win = Rect::new(1800, -20, 400, 100);
        assert_eq!(screen.intersect(&win), Some(Rect::new(1800, 0, 120, 80)));
        assert_eq!(screen.intersect(&Rect::new(1920, 0, 5, 5)), None);
        assert!(screen.contains_rect(&Rect::new(0, 0, 1920, 1080)));
        assert!(!screen.contains_rect(&Rect::new(1, 0, 1920, 1080)));
        assert!(screen.contains_point(1919, 1079));
        assert!(!screen.contains_point(1920, 5));
    }
}
