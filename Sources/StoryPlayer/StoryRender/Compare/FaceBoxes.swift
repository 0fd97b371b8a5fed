import Compositor

/// `--face`: each cube face's box on a frame, from its record's corners.
///
/// A face mid-turn is a trapezoid; its bounding box (cut to the frame) is what SSIM is measured
/// in, so the box of a narrow face includes a sliver of its neighbour at the shared edge,
/// which is where a moved edge shows.
enum FaceBoxes {
    static func of(_ record: FrameRecord, width: Int, height: Int) -> [(story: String, box: TileRect)] {
        record.faces.compactMap { face in
            let xs = face.quad.compactMap(\.first), ys = face.quad.compactMap { $0.count > 1 ? $0[1] : nil }
            guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return nil }
            let left = max(0, min(width, Int(minX.rounded(.down)))), right = max(0, min(width, Int(maxX.rounded(.up))))
            let top = max(0, min(height, Int(minY.rounded(.down)))), bottom = max(0, min(height, Int(maxY.rounded(.up))))
            return (face.story, TileRect(x: left, y: top, width: right - left, height: bottom - top))
        }
    }
}
