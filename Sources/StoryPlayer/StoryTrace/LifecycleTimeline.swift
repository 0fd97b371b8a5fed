import Compositor
import Foundation

/// The lifecycle as one picture: a lane per story (named as the storyboard spells it) with time
/// running left to right, and under a room's a lane per participant's tile players and one per
/// participant's audio-only player; a bar
/// per player from play to stop labelled with its id (hatched red from the moment it failed), marks
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
            // A room's tile players have no bound of their own: no band on their lanes.
            if layout.map.tileLanes.contains(lane) { continue }
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

    // MARK: - Lanes

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

    /// Events from a trace file's JSON Lines; lines that are not events are skipped.
    public static func events(fromJSONLines text: String) -> [TraceEvent] {
        text.split(separator: "\n").compactMap { line in try? TraceEvent(jsonLine: line) }
    }
}
