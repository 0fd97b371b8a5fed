/// The part of a video file an item plays: its `"in"` and `"out"`, seconds of the file's own
/// time. The item's time 0 is the file's `start`, so the progress bar, captions, layers and
/// `still --time` count from the cut, as a phone's editor shows a trimmed clip.
public struct ClipTrim: Sendable, Equatable {
    /// Where the item starts in the file (`in`), seconds.
    public var start: Double
    /// Where it ends in the file (`out`), seconds; nil: at the file's end.
    public var end: Double?

    public init(start: Double = 0, end: Double? = nil) {
        precondition(start >= 0 && end.map { $0 > start } ?? true, "a trim ends after it starts")
        self.start = start
        self.end = end
    }

    /// How long the item plays, from the file's length (nil: unknown) and the cut.
    public func length(ofFileLasting whole: Double?) -> Double? {
        guard let last = [whole, end].compactMap({ $0 }).min() else { return nil }
        return max(0, last - start)
    }
}
