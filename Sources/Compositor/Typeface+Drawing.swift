// MARK: - Measuring and drawing text

extension Typeface {
    /// How far `text` at `size` pixels moves the pen: the width a layout reserves for it.
    public func width(of text: String, size: Int) -> Int {
        line(text, size: size).width
    }

    /// The ascent, descent and line height of this face at `size` pixels.
    public func metrics(size: Int) -> TextMetrics {
        line("", size: size).metrics
    }

    /// Draws `text` at `size` pixels with the top of its line at `y` and its pen starting at `x`,
    /// each glyph's coverage blended over the picture (clipped to it).
    public func draw(_ text: String, x: Int, y: Int, size: Int, color: RGBAColor, on image: inout RGBAImage) {
        let line = line(text, size: size)
        let baseline = y + line.metrics.ascent
        for placed in line.glyphs {
            let glyph = placed.glyph
            let originX = x + placed.x + glyph.left, originY = baseline - glyph.top
            for row in 0..<glyph.rows {
                let py = originY + row
                guard py >= 0 && py < image.height else { continue }
                for column in 0..<glyph.width {
                    let px = originX + column
                    let coverage = glyph.coverage[row * glyph.width + column]
                    guard coverage > 0, px >= 0, px < image.width else { continue }
                    image.blend(x: px, y: py, color: color, coverage: Double(coverage) / 255)
                }
            }
        }
    }

    /// `text` cut to fit `width` pixels at `size`, ending in "…" when it was cut.
    public func truncated(_ text: String, toFit width: Int, size: Int) -> String {
        guard self.width(of: text, size: size) > width else { return text }
        var kept = Substring(text)
        while !kept.isEmpty, self.width(of: kept + "…", size: size) > width { kept = kept.dropLast() }
        return kept.isEmpty ? "" : kept + "…"
    }
}
