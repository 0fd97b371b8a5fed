extension Storyboard {
    /// The storyboard with command-line overrides applied; nil leaves a value as it is.
    public func overriding(width: Int? = nil, height: Int? = nil, fps: Double? = nil, duration: Double? = nil) -> Storyboard {
        var copy = self
        if let width { copy.canvas.width = width }
        if let height { copy.canvas.height = height }
        if let fps { copy.canvas.fps = fps }
        if let duration { copy.duration = duration }
        return copy
    }
}
