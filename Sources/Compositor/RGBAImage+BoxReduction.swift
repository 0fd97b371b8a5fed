import Foundation

// MARK: - Shrinking by whole blocks

extension RGBAImage {
    /// The picture shrunk by a whole `factor`, each pixel the mean of the block it covers (the
    /// last row and column of blocks may be cut short). Alpha comes out opaque.
    public func boxReduced(by factor: Int) -> RGBAImage {
        guard factor > 1 else { return self }
        let size = Self.reducedSize(width: width, height: height, by: factor)
        return boxReduced(by: factor, blockColumns: 0..<size.width, blockRows: 0..<size.height)
    }

    /// The size `boxReduced(by: factor)` gives a `width`×`height` picture.
    static func reducedSize(width: Int, height: Int, by factor: Int) -> (width: Int, height: Int) {
        (max(1, (width + factor - 1) / factor), max(1, (height + factor - 1) / factor))
    }

    /// The part of `boxReduced(by: factor)` made of `blockColumns` × `blockRows`, the same
    /// pixels, reading only the blocks asked for: a room's blurred fill keeps the middle of the
    /// shrunk picture and reads each of its pixels once a frame (the ranges must lie inside the
    /// shrunk picture). `factor` 1 is the part of the picture itself, alpha kept.
    ///
    /// A block's row is summed four channels at a time into 32-bit lanes, which no block of a
    /// picture under 16 million pixels can overflow; the mean rounds half up, as it always has.
    func boxReduced(by factor: Int, blockColumns: Range<Int>, blockRows: Range<Int>) -> RGBAImage {
        let reduced = Self.reducedSize(width: width, height: height, by: max(1, factor))
        precondition(!blockColumns.isEmpty && !blockRows.isEmpty && blockColumns.lowerBound >= 0 && blockRows.lowerBound >= 0
                     && blockColumns.upperBound <= reduced.width && blockRows.upperBound <= reduced.height,
                     "blocks outside the reduced picture")
        guard factor > 1 else {
            return cropped(x: blockColumns.lowerBound, y: blockRows.lowerBound, width: blockColumns.count, height: blockRows.count)
        }
        let w = blockColumns.count, h = blockRows.count
        var out = [UInt8](repeating: 255, count: w * h * 4)
        var sums = [SIMD4<UInt32>](repeating: .zero, count: w)
        let width = width, height = height
        pixels.withUnsafeBytes { source in
            let base = source.baseAddress!
            out.withUnsafeMutableBufferPointer { out in
                sums.withUnsafeMutableBufferPointer { sums in
                    for (row, by) in blockRows.enumerated() {
                        let y0 = by * factor, y1 = min(height, y0 + factor)
                        sums.update(repeating: .zero)
                        for y in y0..<y1 {
                            let line = base + y * width * 4
                            for (column, bx) in blockColumns.enumerated() {
                                let x0 = bx * factor, x1 = min(width, x0 + factor)
                                var sum = SIMD4<UInt32>.zero
                                var pixel = line + x0 * 4
                                for _ in x0..<x1 {
                                    sum &+= SIMD4<UInt32>(truncatingIfNeeded: pixel.loadUnaligned(as: SIMD4<UInt8>.self))
                                    pixel += 4
                                }
                                sums[column] &+= sum
                            }
                        }
                        for (column, bx) in blockColumns.enumerated() {
                            let x0 = bx * factor, x1 = min(width, x0 + factor)
                            let count = UInt32((y1 - y0) * (x1 - x0))
                            let mean = (sums[column] &+ count / 2) / count
                            let o = (row * w + column) * 4
                            out[o] = UInt8(truncatingIfNeeded: mean.x)
                            out[o + 1] = UInt8(truncatingIfNeeded: mean.y)
                            out[o + 2] = UInt8(truncatingIfNeeded: mean.z)
                        }
                    }
                }
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}
