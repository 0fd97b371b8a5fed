import Compositor

/// Keeps small copies of evenly spaced frames for a contact sheet, in bounded memory.
///
/// When the number of frames is known it keeps exactly the evenly spaced ones. When it is not
/// (a render that ends with its last story), it keeps every `stride`-th frame and doubles the
/// stride whenever it holds twice what it needs, then picks evenly among what it kept.
struct ThumbnailPicker {
    let wanted: Int
    let planned: Int?
    let width: Int
    /// With a known frame count, the frames to keep (computed once, not every frame).
    private let plannedIndices: Set<Int>
    private var kept: [(index: Int, time: Double, picture: RGBAImage)] = []
    private var stride = 1

    init(wanted: Int, planned: Int?, width: Int) {
        self.wanted = wanted
        self.planned = planned
        self.width = width
        plannedIndices = planned.map { Set(ThumbnailPicker.evenlySpaced(wanted, of: $0)) } ?? []
    }

    /// The evenly spaced frame numbers of a render of `total` frames.
    static func evenlySpaced(_ count: Int, of total: Int) -> [Int] {
        guard total > 0, count > 0 else { return [] }
        if count >= total { return Array(0..<total) }
        if count == 1 { return [0] }
        return (0..<count).map { Int((Double($0) * Double(total - 1) / Double(count - 1)).rounded()) }
    }

    mutating func offer(_ index: Int, time: Double, _ frame: RGBAImage) {
        guard wanted > 0 else { return }
        if planned != nil {
            guard plannedIndices.contains(index) else { return }
        } else {
            guard index % stride == 0 else { return }
        }
        let height = max(2, frame.height * width / frame.width)
        kept.append((index, time, frame.scaled(width: width, height: height)))
        if planned == nil && kept.count > 2 * wanted {
            stride *= 2
            kept.removeAll { $0.index % stride != 0 }
        }
    }

    /// The frames for the sheet, in order.
    var chosen: [(time: Double, picture: RGBAImage)] {
        ThumbnailPicker.evenlySpaced(wanted, of: kept.count).map { (kept[$0].time, kept[$0].picture) }
    }
}
