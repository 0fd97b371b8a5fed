import Compositor

/// `--face`: each cube face's box on a frame, from its record's corners.
///
/// A face mid-turn is a trapezoid; its bounding box (cut to the frame) is what SSIM is measured
/// in, so the box of a narrow face includes a sliver of its neighbour at the shared edge,
/// which is where a moved edge shows.
enum FaceBoxes {
    /// The faces' boxes on a frame of `width`x`height`, cut to `region` when one is given (a
    /// face outside it has an empty box).
    static func of(_ record: FrameRecord, width: Int, height: Int, region: TileRect? = nil) -> [(story: String, box: TileRect)] {
        let area = region ?? TileRect(x: 0, y: 0, width: width, height: height)
        let (areaRight, areaBottom) = (min(width, area.x + area.width), min(height, area.y + area.height))
        return record.faces.compactMap { face -> (story: String, box: TileRect)? in
            let xs = face.quad.compactMap(\.first), ys = face.quad.compactMap { $0.count > 1 ? $0[1] : nil }
            guard let minX = xs.min(), let maxX = xs.max(), let minY = ys.min(), let maxY = ys.max() else { return nil }
            let left = max(area.x, min(areaRight, Int(minX.rounded(.down))))
            let right = max(left, min(areaRight, Int(maxX.rounded(.up))))
            let top = max(area.y, min(areaBottom, Int(minY.rounded(.down))))
            let bottom = max(top, min(areaBottom, Int(maxY.rounded(.up))))
            return (face.story, TileRect(x: left, y: top, width: right - left, height: bottom - top))
        }
    }
}
