import Compositor
import Foundation
import StoryModel

extension LifecycleTimeline {
    /// Where things are drawn, so tests can find them.
    public struct Layout: Sendable {
        public let width: Int
        public let height: Int
        public let left = 120, right = 16, top = 28, laneHeight = 28
        public let duration: Double
        /// Each story's lane, and under a room's its participants' audio lanes (`LaneMap`).
        public var lanes: [String] { map.lanes }
        public let map: LaneMap
        /// The legend's entries, placed in rows under the lanes.
        public let legend: [LegendEntry]

        init(width: Int, duration: Double, map: LaneMap, maxAlive: Int, maxAudio: Int?) {
            self.width = width
            self.duration = duration
            self.map = map
            let legendTop = top + max(1, map.lanes.count) * laneHeight + 10
            legend = LifecycleTimeline.placeLegend(maxAlive: maxAlive, maxAudio: maxAudio, top: legendTop, width: width)
            height = (legend.map { $0.y + LifecycleTimeline.legendRowHeight } .max() ?? legendTop) + 6
        }

        public func x(_ t: Double) -> Int {
            // Clamped so that a time far off the axis lands just off the picture, not in a trap.
            let fraction = min(max(t / duration, -1), 2)
            return left + Int((fraction.isNaN ? 0 : fraction * Double(width - left - right)).rounded())
        }

        // MARK: - The time axis

        /// Seconds between labelled ticks: 1, 5 or 10 on short traces, then 20, 50, 100, ... so
        /// the axis never has more than about 20 labels; and coarser (2, 5, 10, 20, ...) until
        /// the labels, measured in the timeline's font, leave a gap between each other.
        public var tickStep: Double {
            var step = 1.0
            if duration > 60 {
                step = 10
                while duration / step > 20 { step = LifecycleTimeline.nextStep(step) }
            } else if duration > 20 {
                step = 5
            }
            while step < duration, axisLabelsOverlap(axisLabels(step: step)) { step = LifecycleTimeline.nextStep(step) }
            return step
        }

        /// The labels of the axis: "0s", "1s", ... at each tick, centred on it but kept inside
        /// the picture.
        public var axisLabels: [AxisLabel] { axisLabels(step: tickStep) }

        func axisLabels(step: Double) -> [AxisLabel] {
            var labels: [AxisLabel] = []
            var tick = 0.0
            while tick * step <= duration {
                let t = tick * step, text = ObjectReader.format(t) + "s"
                let textWidth = Typeface.regular.width(of: text, size: LifecycleTimeline.axisTextSize)
                let x = min(max(0, self.x(t) - textWidth / 2), width - textWidth)
                labels.append(AxisLabel(text: text, t: t, x: x, width: textWidth))
                tick += 1
            }
            return labels
        }

        private func axisLabelsOverlap(_ labels: [AxisLabel]) -> Bool {
            zip(labels, labels.dropFirst()).contains { $0.x + $0.width + LifecycleTimeline.axisLabelGap > $1.x }
        }

        public func laneTop(_ story: String) -> Int? { lanes.firstIndex(of: story).map { top + $0 * laneHeight } }
        public func barCentre(_ story: String) -> Int? { laneTop(story).map { $0 + laneHeight / 2 } }
    }

    public struct AxisLabel: Sendable, Equatable {
        public let text: String
        public let t: Double
        /// The label's left edge and width in pixels.
        public let x: Int
        public let width: Int
    }

    /// Text sizes in pixels: lane names, axis and legend, the players' ids on their bars.
    static let laneTextSize = 13, axisTextSize = 11, barTextSize = 11
    /// The least room between two axis labels.
    public static let axisLabelGap = 6

    /// The next round step: 1 → 2 → 5 → 10 → 20 → 50 → …
    static func nextStep(_ step: Double) -> Double {
        let magnitude = pow(10, (log10(step)).rounded(.down))
        let leading = (step / magnitude).rounded()
        return leading < 2 ? 2 * magnitude : leading < 5 ? 5 * magnitude : 10 * magnitude
    }

    public static func layout(_ events: [TraceEvent], maxAlive: Int = 2, maxAudio: Int? = nil, width: Int = 1200) -> Layout {
        let end = min(max(1, (events.map(\.t).max() ?? 1) * 1.02), .greatestFiniteMagnitude)
        return Layout(width: width, duration: end, map: LaneMap(events), maxAlive: maxAlive, maxAudio: maxAudio)
    }
}
