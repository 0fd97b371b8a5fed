import CRasterSupport
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
    /// The sums are in C (`raster_box_reduce`): a debug build runs Swift's pointer loops a
    /// call per pixel, too slow for a fill made every frame of a realtime room.
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
        pixels.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { out in
                raster_box_reduce(source.baseAddress!, Int32(width), Int32(height), Int32(factor),
                                  Int32(blockColumns.lowerBound), Int32(w), Int32(blockRows.lowerBound), Int32(h), out.baseAddress!)
            }
        }
        return RGBAImage(width: w, height: h, pixels: out)
    }
}
