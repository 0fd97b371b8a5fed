extension Storyboard {
    /// Seconds of a file an item's `in` and `out` may name: a day.
    static let trimTimes = 0.0...86_400

    /// An item's `"in"` and `"out"` (seconds of its file); `out` must come after `in`. Nil
    /// without either. (A live item has no file time to cut: its caller refuses one there.)
    static func trim(_ reader: inout ObjectReader) -> ClipTrim? {
        let outPath = reader.path("out")
        let start = reader.number("in", in: trimTimes)
        let end = reader.number("out", in: trimTimes)
        guard start != nil || end != nil else { return nil }
        if let end, end <= (start ?? 0) {
            reader.problems.record(StoryboardError(path: outPath,
                                                   message: "\(ObjectReader.format(end)) must come after \"in\" (\(ObjectReader.format(start ?? 0)))"))
            return nil
        }
        return ClipTrim(start: start ?? 0, end: end)
    }
}
