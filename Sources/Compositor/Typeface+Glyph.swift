import CFreeType

// MARK: - Values handed out of the lock

/// A rendered glyph: its coverage (0 = none, 255 = full), where it sits from the pen and the
/// baseline, and how far it moves the pen. Whole pixels: hinted glyphs land on the pixel grid.
struct Glyph: Sendable {
    let width: Int
    let rows: Int
    /// From the pen to the bitmap's left edge.
    let left: Int
    /// From the baseline up to the bitmap's top row.
    let top: Int
    let advance: Int
    let coverage: [UInt8]

    init(width: Int, rows: Int, left: Int, top: Int, advance: Int, coverage: [UInt8]) {
        self.width = width
        self.rows = rows
        self.left = left
        self.top = top
        self.advance = advance
        self.coverage = coverage
    }

    /// Copies the bitmap FreeType just rendered into the slot; gray (8-bit) or, for a bitmap
    /// strike, mono (1-bit) pixels.
    init(slot: FT_GlyphSlotRec) {
        let bitmap = slot.bitmap
        let width = Int(bitmap.width), rows = Int(bitmap.rows), pitch = Int(bitmap.pitch)
        var coverage = [UInt8](repeating: 0, count: width * rows)
        if let buffer = bitmap.buffer {
            let mono = bitmap.pixel_mode == UInt8(FT_PIXEL_MODE_MONO.rawValue)
            for row in 0..<rows {
                // A negative pitch means the rows are stored bottom up.
                let start = pitch >= 0 ? row * pitch : (rows - 1 - row) * -pitch
                for column in 0..<width {
                    coverage[row * width + column] = mono
                        ? (buffer[start + column / 8] & (0x80 >> UInt8(column % 8)) != 0 ? 255 : 0)
                        : buffer[start + column]
                }
            }
        }
        self.init(width: width, rows: rows, left: Int(slot.bitmap_left), top: Int(slot.bitmap_top),
                  advance: Int((slot.advance.x + 32) >> 6), coverage: coverage)
    }
}

struct PlacedGlyph: Sendable {
    let glyph: Glyph
    /// The pen's position, from the line's start.
    let x: Int
}

/// The vertical measures of a face at one size, in pixels.
public struct TextMetrics: Sendable, Equatable {
    /// From the top of the line to the baseline.
    public let ascent: Int
    /// From the baseline down to the bottom of the line.
    public let descent: Int
    /// From one baseline to the next.
    public let lineHeight: Int

    /// Where to draw a line (its top, as `Typeface.draw` takes it) so that its glyphs sit in
    /// the middle of a box `height` pixels high whose top is `boxTop`.
    public func lineTop(centredIn height: Int, at boxTop: Int) -> Int {
        boxTop + (height - ascent - descent) / 2
    }
}

/// A string laid out at one size: its glyphs along the baseline and its advance width.
struct TextLine: Sendable {
    let glyphs: [PlacedGlyph]
    let width: Int
    let metrics: TextMetrics
}
