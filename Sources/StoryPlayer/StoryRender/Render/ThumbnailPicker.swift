import Compositor
import StoryMedia

/// Keeps small copies of evenly spaced frames for a contact sheet, in bounded memory.
///
/// Evenly spaced means the frame numbers round(i × (frames − 1) / (wanted − 1)): the first and
/// the last frame, gaps that differ by at most one frame. When the number of frames is known
/// those are kept exactly. When it is not (a render that ends with its last story), it keeps
/// every `stride`-th frame, doubling the stride whenever it holds four times what it needs, and always
/// the latest frame; at the end it takes the kept frame nearest each evenly spaced number.
struct ThumbnailPicker {
    let wanted: Int
    let planned: Int?
    let width: Int
    /// With a known frame count, the frames to keep (computed once, not every frame).
    private let plannedIndices: Set<Int>
    private var kept: [ContactSheet.Frame] = []
    /// The latest frame offered, when the stride did not keep it: the last frame of an
    /// open-ended render must be on its sheet. Held at full size and made small only in
    /// `chosen`: scaling every frame in case it was the last cost about a millisecond a frame.
    /// Holding it costs no copy, since the render's next canvas is one whose encoding is done.
    private var latest: (number: Int, time: Double, picture: RGBAImage)?
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
        } else if index % stride != 0 {
            latest = (index, time, frame)
            return
        }
        latest = nil
        kept.append(thumbnail(index, time, frame))
        // Four times what it needs, so the frame nearest each even number is at most a quarter
        // of a gap away: at twice, one gap in the sheet could be double the next.
        if planned == nil && kept.count > 4 * wanted {
            stride *= 2
            kept.removeAll { $0.number % stride != 0 }
        }
    }

    private func thumbnail(_ index: Int, _ time: Double, _ frame: RGBAImage) -> ContactSheet.Frame {
        let height = max(2, frame.height * width / frame.width)
        return ContactSheet.Frame(number: index, time: time, picture: frame.scaled(width: width, height: height))
    }

    /// The frames for the sheet, in order.
    var chosen: [ContactSheet.Frame] {
        if planned != nil { return kept }
        let candidates = kept + (latest.map { [thumbnail($0.number, $0.time, $0.picture)] } ?? [])
        guard let first = candidates.first, let last = candidates.last else { return [] }
        var chosen: [ContactSheet.Frame] = []
        for number in ThumbnailPicker.evenlySpaced(wanted, of: last.number - first.number + 1) {
            let target = first.number + number
            let nearest = candidates.min { abs($0.number - target) < abs($1.number - target) }!
            if chosen.last?.number != nearest.number { chosen.append(nearest) }
        }
        return chosen
    }
}
