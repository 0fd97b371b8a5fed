// MARK: - Where a stream starts on the container's clock

extension StreamTimeline {
    /// The stream's first timestamp in seconds of the container's clock. Two streams of one file
    /// that start apart (a phone's sound that starts before its pictures) differ by this much:
    /// each stream's own media time counts from its own start, so this puts them back in step.
    var startSeconds: Double {
        let seconds = Double(start) * unit
        return seconds.isFinite ? seconds : 0
    }
}
