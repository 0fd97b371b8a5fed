import Compositor

// MARK: - The legend: what each colour means

extension LifecycleTimeline {
    /// One entry of the legend: a swatch drawn as the timeline draws that thing, and its name.
    public struct LegendEntry: Sendable {
        public enum Swatch: Sendable, Equatable {
            case bar(RGBAColor), failedBar, mark(RGBAColor), band(RGBAColor)
        }

        public let text: String
        public let swatch: Swatch
        /// The swatch's top-left corner; the text follows it.
        public let x: Int
        public let y: Int

        /// The middle of the swatch, where its colour can be probed.
        public var swatchCentre: (x: Int, y: Int) { (x + LifecycleTimeline.swatchWidth / 2, y + LifecycleTimeline.legendRowHeight / 2) }
    }

    static let legendRowHeight = 18, swatchWidth = 16

    /// The entries in reading order, wrapped into rows that fit `width`.
    static func placeLegend(maxAlive: Int, maxAudio: Int?, top: Int, width: Int) -> [LegendEntry] {
        var entries: [(String, LegendEntry.Swatch)] = [
            ("player", .bar(palette[0])), ("failed player", .failedBar),
            ("first picture", .mark(markColors[.firstFrame]!)), ("ended", .mark(markColors[.ended]!)),
            ("failed", .mark(markColors[.failed]!)), ("reconnect", .mark(markColors[.reconnect]!)),
        ]
        if maxAlive >= 2 { entries.append((maxAlive == 2 ? "2 alive" : "2 to \(maxAlive) alive", .band(twoAliveBand))) }
        entries.append(("more than \(maxAlive) alive", .band(tooManyBand)))
        // On a room's audio lanes, which `check --max-audio` bounds.
        if let maxAudio { entries.append(("more than \(maxAudio) audio", .band(tooManyBand))) }
        var placed: [LegendEntry] = []
        var x = 8, y = top
        for (text, swatch) in entries {
            let entryWidth = swatchWidth + 5 + Typeface.regular.width(of: text, size: axisTextSize)
            if x > 8 && x + entryWidth > width - 8 {
                x = 8
                y += legendRowHeight
            }
            placed.append(LegendEntry(text: text, swatch: swatch, x: x, y: y))
            x += entryWidth + 14
        }
        return placed
    }

    static func drawLegend(_ layout: Layout, on image: inout RGBAImage) {
        let h = Double(legendRowHeight), w = Double(swatchWidth)
        for entry in layout.legend {
            let x = Double(entry.x), y = Double(entry.y)
            switch entry.swatch {
            case .bar(let color):
                image.fillRoundedRect(x: x, y: y + 4, width: w, height: h - 8, radius: 3, color: color)
            case .failedBar:
                drawFailedBar(x0: entry.x, x1: entry.x + swatchWidth, top: entry.y + 4, bottom: entry.y + legendRowHeight - 4, on: &image)
            case .mark(let color):
                image.fillRoundedRect(x: x + w / 2 - 1, y: y + 2, width: 3, height: h - 4, radius: 0, color: color)
            case .band(let color):
                image.fillRoundedRect(x: x, y: y + 2, width: w, height: h - 4, radius: 0, color: color)
            }
            let metrics = Typeface.regular.metrics(size: axisTextSize)
            Typeface.regular.draw(entry.text, x: entry.x + swatchWidth + 5, y: metrics.lineTop(centredIn: legendRowHeight, at: entry.y),
                                  size: axisTextSize, color: axisColor, on: &image)
        }
    }
}
