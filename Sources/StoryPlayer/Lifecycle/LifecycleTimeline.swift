import Compositor
import Foundation

/// The lifecycle as one picture: a lane per story with time running left to right, a bar per
/// player from play to stop labelled with its id, marks for firstFrame (green), ended (blue),
/// failed (red) and reconnect (orange), a shaded band wherever two players are alive and a red
/// band wherever more than `maxAlive` are. It answers "did the lifecycle behave?" at a glance.
public enum LifecycleTimeline {
    public static let background = RGBAColor(red: 0x14, green: 0x14, blue: 0x18)
    public static let twoAliveBand = RGBAColor(red: 0x3a, green: 0x3a, blue: 0x48)
    public static let tooManyBand = RGBAColor(red: 0xb0, green: 0x1c, blue: 0x1c)
    public static let markColors: [TraceEvent.Kind: RGBAColor] = [
        .firstFrame: RGBAColor(red: 0x3c, green: 0xd0, blue: 0x60), .ended: RGBAColor(red: 0x50, green: 0x90, blue: 0xff),
        .failed: RGBAColor(red: 0xff, green: 0x30, blue: 0x30), .reconnect: RGBAColor(red: 0xff, green: 0xa0, blue: 0x20),
    ]
    static let palette = [RGBAColor(red: 0x8e, green: 0x6b, blue: 0xe8), RGBAColor(red: 0xe8, green: 0x8a, blue: 0x3c),
                          RGBAColor(red: 0x3c, green: 0xb4, blue: 0xc8), RGBAColor(red: 0xd8, green: 0x5c, blue: 0x9c),
                          RGBAColor(red: 0x9c, green: 0xc0, blue: 0x40)]

    /// Where things are drawn, so tests can find them.
    public struct Layout: Sendable {
        public let width: Int
        public let height: Int
        public let left = 120, right = 16, top = 28, laneHeight = 28
        public let duration: Double
        public let lanes: [String]

        public func x(_ t: Double) -> Int {
            // Clamped so that a time far off the axis lands just off the picture, not in a trap.
            let fraction = min(max(t / duration, -1), 2)
            return left + Int((fraction.isNaN ? 0 : fraction * Double(width - left - right)).rounded())
        }

        /// Seconds between labelled ticks: 1, 5 or 10 on short traces, then 20, 50, 100, ... so
        /// the axis never has more than about 20 labels.
        public var tickStep: Double {
            if duration <= 20 { return 1 }
            if duration <= 60 { return 5 }
            var step = 10.0, factors = [2.0, 2.5, 2.0], index = 0
            while duration / step > 20 {
                step *= factors[index % factors.count]
                index += 1
            }
            return step
        }
        public func laneTop(_ story: String) -> Int? { lanes.firstIndex(of: story).map { top + $0 * laneHeight } }
        public func barCentre(_ story: String) -> Int? { laneTop(story).map { $0 + laneHeight / 2 } }
    }

    public static func layout(_ events: [TraceEvent], width: Int = 1200) -> Layout {
        var lanes: [String] = []
        for event in events where event.event != .preload && !lanes.contains(event.story) { lanes.append(event.story) }
        let end = min(max(1, (events.map(\.t).max() ?? 1) * 1.02), .greatestFiniteMagnitude)
        return Layout(width: width, height: 28 + max(1, lanes.count) * 28 + 24, duration: end, lanes: lanes)
    }

    public static func render(_ events: [TraceEvent], maxAlive: Int = 2, width: Int = 1200) -> RGBAImage {
        let layout = layout(events, width: width)
        var image = RGBAImage(width: layout.width, height: layout.height, fill: background)
        let lanesBottom = layout.top + layout.lanes.count * layout.laneHeight
        // Bands: how many players are alive, over time.
        var alive = 0
        var since = 0.0
        func band(until t: Double) {
            guard alive >= 2, t > since else { return }
            let color = alive > maxAlive ? tooManyBand : twoAliveBand
            image.fillRoundedRect(x: Double(layout.x(since)), y: Double(layout.top), width: Double(layout.x(t) - layout.x(since)),
                                  height: Double(lanesBottom - layout.top), radius: 0, color: color)
        }
        for event in events where event.event == .play || event.event == .stop {
            band(until: event.t)
            alive += event.event == .play ? 1 : -1
            since = event.t
        }
        band(until: layout.duration)
        // Lane labels and separators.
        for (index, story) in layout.lanes.enumerated() {
            let top = layout.top + index * layout.laneHeight
            BitmapFont.draw(String(story.prefix(16)), x: 8, y: top + 8, scale: story.count <= 9 ? 2 : 1,
                            color: RGBAColor(red: 220, green: 220, blue: 230), on: &image)
            image.fillRoundedRect(x: Double(layout.left), y: Double(top + layout.laneHeight - 1), width: Double(width - layout.left - layout.right),
                                  height: 1, radius: 0, color: RGBAColor(red: 60, green: 60, blue: 70))
        }
        // Player bars, from play to stop (or to the end).
        var playing: [Int: (story: String, start: Double)] = [:]
        func bar(_ player: Int, _ story: String, _ start: Double, _ end: Double) {
            guard let lane = layout.lanes.firstIndex(of: story), let top = layout.laneTop(story) else { return }
            let x0 = layout.x(start), x1 = max(layout.x(end), x0 + 2)
            image.fillRoundedRect(x: Double(x0), y: Double(top + 7), width: Double(x1 - x0), height: Double(layout.laneHeight - 14),
                                  radius: 3, color: palette[lane % palette.count])
            let label = "#\(player)"
            if BitmapFont.width(of: label) + 6 < x1 - x0 {
                BitmapFont.draw(label, x: x0 + 4, y: top + 10, color: .white, on: &image)
            }
        }
        for event in events {
            guard let player = event.player else { continue }
            if event.event == .play { playing[player] = (event.story, event.t) }
            if event.event == .stop, let started = playing.removeValue(forKey: player) { bar(player, started.story, started.start, event.t) }
        }
        for (player, started) in playing { bar(player, started.story, started.start, layout.duration) }
        // Marks.
        for event in events {
            guard let color = markColors[event.event], let top = layout.laneTop(event.story) else { continue }
            let x = layout.x(event.t)
            image.fillRoundedRect(x: Double(x - 1), y: Double(top + 3), width: 3, height: Double(layout.laneHeight - 6), radius: 0, color: color)
        }
        // Time axis: a tick and label every `tickStep` seconds.
        let step = layout.tickStep
        var tick = 0.0
        while tick * step <= layout.duration {
            let t = tick * step, x = layout.x(t)
            image.fillRoundedRect(x: Double(x), y: Double(layout.top - 6), width: 1, height: 6, radius: 0, color: RGBAColor(red: 150, green: 150, blue: 160))
            BitmapFont.draw(ObjectReader.format(t) + "s", x: x - 4, y: 6, color: RGBAColor(red: 150, green: 150, blue: 160), on: &image)
            tick += 1
        }
        return image
    }

    /// Events from a trace file's JSON Lines; lines that are not events are skipped.
    public static func events(fromJSONLines text: String) -> [TraceEvent] {
        text.split(separator: "\n").compactMap { line in try? TraceEvent(jsonLine: line) }
    }
}
