import Compositor

// MARK: - A player's bar and its label

extension LifecycleTimeline {
    /// A bar per player from play to stop (or to the end), in its story's colour, on its lane
    /// (`LaneMap`). A player that failed is hatched red only from its first `failed` event on:
    /// the part before it played normally, and drawing it as failed would hide how long it did.
    /// A room's video player is labelled with its participant too.
    static func drawBars(_ events: [TraceEvent], _ layout: Layout, on image: inout RGBAImage) {
        var failures: [Int: Double] = [:]
        for event in events where event.event == .failed {
            if let player = event.player, failures[player] == nil { failures[player] = event.t }
        }
        var playing: [Int: (event: TraceEvent, start: Double)] = [:]
        // Colours go by story, so a room's audio and tile lanes do not shift the stories after it.
        let storyLanes = layout.lanes.filter(layout.map.isStoryLane)
        func bar(_ player: Int, _ play: TraceEvent, _ start: Double, _ end: Double) {
            let laneName = layout.map.lane(of: play)
            guard let lane = storyLanes.firstIndex(of: play.story), let top = layout.laneTop(laneName) else { return }
            let x0 = layout.x(start), x1 = max(layout.x(end), x0 + 2)
            let bar = BarSpan(x0: x0, x1: x1, top: top + 7, bottom: top + layout.laneHeight - 7)
            image.fillRoundedRect(x: Double(x0), y: Double(bar.top), width: Double(x1 - x0), height: Double(bar.bottom - bar.top),
                                  radius: 3, color: palette[lane % palette.count])
            // A failure logged before the play or after the stop still marks the bar as failed.
            let hatchFrom = failures[player].map { min(max(layout.x($0), x0), x1 - 2) }
            if let hatchFrom { drawFailedBar(x0: hatchFrom, x1: x1, top: bar.top, bottom: bar.bottom, on: &image) }
            var label = "#\(player)"
            if !layout.map.isAudio(player: player), let participant = layout.map.participant(of: play) { label += " " + participant }
            drawLabel(label, on: bar, hatchFrom: hatchFrom, laneTop: top, layout, &image)
        }
        for event in events {
            guard let player = event.player else { continue }
            if event.event == .play { playing[player] = (event, event.t) }
            if event.event == .stop, let started = playing.removeValue(forKey: player) { bar(player, started.event, started.start, event.t) }
        }
        for (player, started) in playing.sorted(by: { $0.key < $1.key }) { bar(player, started.event, started.start, layout.duration) }
    }

    /// Where a bar is, in pixels: columns `x0..<x1`, rows `top..<bottom`.
    struct BarSpan {
        let x0: Int, x1: Int, top: Int, bottom: Int
    }

    /// Where a bar's label goes: at its start when that part played normally and has room for
    /// it; else just after the failure mark, on a plate of the hatch's dark ground, because
    /// white text on the bright stripes cannot be read (and the red mark must not cross it).
    /// No label when neither fits.
    struct LabelPlacement: Equatable {
        let x: Int
        /// The plate behind the label, when it sits on hatching: columns `plate.lowerBound..<plate.upperBound`.
        let plate: Range<Int>?
    }

    static func labelPlacement(width textWidth: Int, on bar: BarSpan, hatchFrom: Int?) -> LabelPlacement? {
        let normalEnd = hatchFrom.map { $0 - 2 } ?? bar.x1
        if bar.x0 + 4 + textWidth + 2 < normalEnd { return LabelPlacement(x: bar.x0 + 4, plate: nil) }
        guard let hatchFrom else { return nil }
        // The failure mark is 3 pixels wide around `hatchFrom`; the plate starts past it.
        let x = hatchFrom + 5
        guard x + textWidth + 3 <= bar.x1 else { return nil }
        return LabelPlacement(x: x, plate: x - 3..<x + textWidth + 3)
    }

    private static func drawLabel(_ label: String, on bar: BarSpan, hatchFrom: Int?, laneTop: Int, _ layout: Layout, _ image: inout RGBAImage) {
        let face = Typeface.regular
        guard let place = labelPlacement(width: face.width(of: label, size: barTextSize), on: bar, hatchFrom: hatchFrom) else { return }
        if let plate = place.plate {
            image.fillRoundedRect(x: Double(plate.lowerBound), y: Double(bar.top), width: Double(plate.count),
                                  height: Double(bar.bottom - bar.top), radius: 0, color: failedBar)
        }
        face.draw(label, x: place.x, y: face.metrics(size: barTextSize).lineTop(centredIn: layout.laneHeight, at: laneTop),
                  size: barTextSize, color: .white, on: &image)
    }

    // MARK: - Hatching

    /// The failed span of a bar: dark red with bright diagonal stripes, unlike any story's
    /// colour, so it reads as failed even where its red `failed` mark is far off or hidden.
    static func drawFailedBar(x0: Int, x1: Int, top: Int, bottom: Int, on image: inout RGBAImage) {
        // Clamped first: a bar off the picture (a time before 0) is an empty range, not a trap.
        let firstRow = max(0, top), firstColumn = max(0, x0)
        let rows = firstRow..<max(firstRow, min(image.height, bottom)), columns = firstColumn..<max(firstColumn, min(image.width, x1))
        for y in rows {
            for x in columns {
                image[x, y] = (x + y) % 6 < 2 ? failedHatch : failedBar
            }
        }
    }
}
