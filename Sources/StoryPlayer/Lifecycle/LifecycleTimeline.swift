import Compositor
import Foundation

/// The lifecycle as one picture: a lane per story (named as the storyboard spells it) with time
/// running left to right, and under a room's a lane per participant's audio-only player; a bar
/// per player from play to stop labelled with its id (hatched red when the player failed), marks
/// for firstFrame (green), ended (blue), failed (red) and reconnect (orange), a shaded band
/// wherever two video players are alive and a red band wherever more than `maxAlive` are (on the
/// audio lanes, more than `maxAudio`), counted as `check` counts, and a legend saying so. It
/// answers "did the lifecycle behave?" at a glance.
public enum LifecycleTimeline {
    public static let background = RGBAColor(red: 0x14, green: 0x14, blue: 0x18)
    public static let twoAliveBand = RGBAColor(red: 0x3a, green: 0x3a, blue: 0x48)
    public static let tooManyBand = RGBAColor(red: 0xb0, green: 0x1c, blue: 0x1c)
    public static let failedBar = RGBAColor(red: 0x5a, green: 0x10, blue: 0x18)
    public static let failedHatch = RGBAColor(red: 0xff, green: 0x60, blue: 0x60)
    public static let markColors: [TraceEvent.Kind: RGBAColor] = [
        .firstFrame: RGBAColor(red: 0x3c, green: 0xd0, blue: 0x60), .ended: RGBAColor(red: 0x50, green: 0x90, blue: 0xff),
        .failed: RGBAColor(red: 0xff, green: 0x30, blue: 0x30), .reconnect: RGBAColor(red: 0xff, green: 0xa0, blue: 0x20),
    ]
    static let palette = [RGBAColor(red: 0x8e, green: 0x6b, blue: 0xe8), RGBAColor(red: 0xe8, green: 0x8a, blue: 0x3c),
                          RGBAColor(red: 0x3c, green: 0xb4, blue: 0xc8), RGBAColor(red: 0xd8, green: 0x5c, blue: 0x9c),
                          RGBAColor(red: 0x9c, green: 0xc0, blue: 0x40)]
    static let laneTextColor = RGBAColor(red: 220, green: 220, blue: 230)
    static let axisColor = RGBAColor(red: 150, green: 150, blue: 160)

    public static func render(_ events: [TraceEvent], maxAlive: Int = 2, maxAudio: Int? = nil, width: Int = 1200) -> RGBAImage {
        let layout = layout(events, maxAlive: maxAlive, maxAudio: maxAudio, width: width)
        var image = RGBAImage(width: layout.width, height: layout.height, fill: background)
        // Bands: how many players are alive over time, as `check` counts them: video players on
        // the stories' lanes, a room's audio-only players on their own.
        let video = aliveSpans(events, map: layout.map, audio: false, until: layout.duration)
        let audio = aliveSpans(events, map: layout.map, audio: true, until: layout.duration)
        for (index, lane) in layout.lanes.enumerated() {
            let top = layout.top + index * layout.laneHeight
            let isAudio = layout.map.audioLanes.contains(lane)
            for span in isAudio ? audio : video {
                let color: RGBAColor
                if isAudio {
                    guard let maxAudio, span.count > maxAudio else { continue }
                    color = tooManyBand
                } else {
                    guard span.count >= 2 else { continue }
                    color = span.count > maxAlive ? tooManyBand : twoAliveBand
                }
                image.fillRoundedRect(x: Double(layout.x(span.start)), y: Double(top),
                                      width: Double(layout.x(span.end) - layout.x(span.start)),
                                      height: Double(layout.laneHeight), radius: 0, color: color)
            }
        }
        drawLanes(layout, on: &image)
        drawBars(events, layout, on: &image)
        // Marks.
        for event in events {
            guard let color = markColors[event.event], let top = layout.laneTop(layout.map.lane(of: event)) else { continue }
            let x = layout.x(event.t)
            image.fillRoundedRect(x: Double(x - 1), y: Double(top + 3), width: 3, height: Double(layout.laneHeight - 6), radius: 0, color: color)
        }
        // Time axis: a tick every `tickStep` seconds, its label centred over it.
        for label in layout.axisLabels {
            image.fillRoundedRect(x: Double(layout.x(label.t)), y: Double(layout.top - 6), width: 1, height: 6, radius: 0, color: axisColor)
            Typeface.regular.draw(label.text, x: label.x, y: 6, size: axisTextSize, color: axisColor, on: &image)
        }
        drawLegend(layout, on: &image)
        return image
    }

    // MARK: - Lanes and bars

    /// Each lane's story id in its own case (cut with "…" where the margin ends), and a rule.
    private static func drawLanes(_ layout: Layout, on image: inout RGBAImage) {
        let face = Typeface.regular, size = laneTextSize
        let metrics = face.metrics(size: size)
        for (index, story) in layout.lanes.enumerated() {
            let top = layout.top + index * layout.laneHeight
            let name = face.truncated(story, toFit: layout.left - 16, size: size)
            face.draw(name, x: 8, y: metrics.lineTop(centredIn: layout.laneHeight, at: top), size: size,
                      color: laneTextColor, on: &image)
            image.fillRoundedRect(x: Double(layout.left), y: Double(top + layout.laneHeight - 1),
                                  width: Double(layout.width - layout.left - layout.right), height: 1, radius: 0,
                                  color: RGBAColor(red: 60, green: 60, blue: 70))
        }
    }

    /// A bar per player from play to stop (or to the end), in its story's colour, or hatched red
    /// when the player failed; on its lane (`LaneMap`). A room's video player is labelled with
    /// its participant too.
    private static func drawBars(_ events: [TraceEvent], _ layout: Layout, on image: inout RGBAImage) {
        let failed = Set(events.filter { $0.event == .failed }.compactMap(\.player))
        var playing: [Int: (event: TraceEvent, start: Double)] = [:]
        // Colours go by story, so a room's audio lanes do not shift the stories after it.
        let storyLanes = layout.lanes.filter { !layout.map.audioLanes.contains($0) }
        func bar(_ player: Int, _ play: TraceEvent, _ start: Double, _ end: Double) {
            let laneName = layout.map.lane(of: play)
            guard let lane = storyLanes.firstIndex(of: play.story), let top = layout.laneTop(laneName) else { return }
            let x0 = layout.x(start), x1 = max(layout.x(end), x0 + 2)
            if failed.contains(player) {
                drawFailedBar(x0: x0, x1: x1, top: top + 7, bottom: top + layout.laneHeight - 7, on: &image)
            } else {
                image.fillRoundedRect(x: Double(x0), y: Double(top + 7), width: Double(x1 - x0), height: Double(layout.laneHeight - 14),
                                      radius: 3, color: palette[lane % palette.count])
            }
            var label = "#\(player)"
            if !layout.map.isAudio(player: player), let participant = layout.map.participant(of: play) { label += " " + participant }
            if Typeface.regular.width(of: label, size: barTextSize) + 6 < x1 - x0 {
                let metrics = Typeface.regular.metrics(size: barTextSize)
                Typeface.regular.draw(label, x: x0 + 4, y: metrics.lineTop(centredIn: layout.laneHeight, at: top),
                                      size: barTextSize, color: .white, on: &image)
            }
        }
        for event in events {
            guard let player = event.player else { continue }
            if event.event == .play { playing[player] = (event, event.t) }
            if event.event == .stop, let started = playing.removeValue(forKey: player) { bar(player, started.event, started.start, event.t) }
        }
        for (player, started) in playing.sorted(by: { $0.key < $1.key }) { bar(player, started.event, started.start, layout.duration) }
    }

    /// Events from a trace file's JSON Lines; lines that are not events are skipped.
    public static func events(fromJSONLines text: String) -> [TraceEvent] {
        text.split(separator: "\n").compactMap { line in try? TraceEvent(jsonLine: line) }
    }
}
