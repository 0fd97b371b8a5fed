import Compositor

extension Storyboard {
    /// The storyboard with command-line overrides applied; nil leaves a value as it is.
    ///
    /// Values must lie in the bounds the storyboard format has (`Canvas.sides`,
    /// `Canvas.frameRates`, `Storyboard.durations`): callers validate user input first, as the
    /// parser does, so a value outside them is a programmer error.
    public func overriding(width: Int? = nil, height: Int? = nil, fps: Double? = nil, duration: Double? = nil,
                           background: RGBAColor? = nil) -> Storyboard {
        var copy = self
        if let background { copy.canvas.background = background }
        if let width {
            precondition(Canvas.sides.contains(width), "canvas width \(width) is outside \(Canvas.sides)")
            copy.canvas.width = width
            // A text layer's size is pixels of the canvas it was written for: a smaller
            // canvas draws it smaller, as it places it (its position and width are fractions).
            copy.scaleLayerText(by: Double(width) / Double(canvas.width))
        }
        if let height {
            precondition(Canvas.sides.contains(height), "canvas height \(height) is outside \(Canvas.sides)")
            copy.canvas.height = height
        }
        if let fps {
            precondition(Canvas.frameRates.contains(fps), "frame rate \(fps) is outside \(Canvas.frameRates)")
            copy.canvas.fps = fps
        }
        if let duration {
            precondition(Storyboard.durations.contains(duration), "duration \(duration) is outside \(Storyboard.durations)")
            copy.duration = duration
        }
        return copy
    }
}
