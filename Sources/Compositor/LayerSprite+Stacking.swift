// MARK: - One sprite laid over another's pixels

extension LayerSprite {
    /// Lays this sprite over premultiplied `pixels` (`width`×`height`, rows top to bottom), its
    /// top-left on (`x`, `y`), "over" (Porter-Duff); what falls outside is left out. How a text
    /// layer's colour emoji join its words before the layer is one sprite.
    public func lay(over pixels: inout [SIMD4<Float>], width: Int, height: Int, x: Int, y: Int) {
        precondition(pixels.count == width * height, "the pixels fill their size")
        for row in 0..<self.height {
            let target = y + row
            guard target >= 0 && target < height else { continue }
            for column in 0..<self.width {
                let left = x + column
                guard left >= 0 && left < width else { continue }
                let source = premultiplied[row * self.width + column]
                guard source.w > 0 else { continue }
                let index = target * width + left
                pixels[index] = source + pixels[index] * (1 - source.w / 255)
            }
        }
    }
}
