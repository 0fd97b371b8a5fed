import Compositor
import Foundation
import StoryModel

// MARK: - One frame of a render, on demand (the studio's scrubber)

/// Draws frames of a storyboard exactly as `render` (and `render --frames N..N+1`) draws them,
/// one render-loop step at a time, for a caller that wants the picture rather than a file.
///
/// It is the loop of `StoryRenderer.run()` cut at a frame: frames before the first one asked for
/// are fast-forwarded as a shard does (navigation and lifecycle only, nothing decoded), the
/// players alive there seek and decode forward, and each later frame asked for in order is the
/// next step of the same loop, so playing forward costs one step per frame. A frame before the
/// last one drawn needs a new stepper (the loop only moves forward).
///
/// Always on the virtual clock: a frame must not depend on when it was asked for.
public final class FrameStepper {
    /// The storyboard's frames (for an open-ended one, as counted by navigation alone).
    public let frameCount: Int
    let render: StoryRenderer
    /// The next frame the loop would step to.
    public private(set) var nextFrame = 0
    private var drawnAny = false

    /// `frameCount`, when the caller counted the storyboard's frames already, saves counting
    /// them again (an open-ended storyboard's count runs its whole navigation).
    public init(storyboard: Storyboard, frameCount: Int? = nil, overlay: Bool = true,
                threads: Int = Rasterizer.defaultThreadCount) throws(RenderError) {
        guard !storyboard.stories.isEmpty else {
            throw RenderError(.feed, "a storyboard whose stories come from a feed cannot be previewed frame by frame")
        }
        if let frameCount {
            self.frameCount = frameCount
        } else {
            self.frameCount = try StoryRenderer.countFrames(storyboard)
        }
        var options = RenderOptions(outputFolder: FileManager.default.temporaryDirectory.path)
        options.writeFrames = false
        options.overlay = overlay
        options.threads = threads
        options.clock = .virtual
        render = StoryRenderer(storyboard: storyboard, options: options)
        _ = render.requestPreloads(render.navigator)
    }

    /// Frame `index` (from `nextFrame` on), as `render` writes it without `--alpha`.
    public func frame(_ index: Int) throws(RenderError) -> RGBAImage {
        guard index >= nextFrame else {
            throw RenderError(.options, "frame \(index) is behind this stepper (next is \(nextFrame)): make a new one")
        }
        guard index < frameCount else {
            throw RenderError(.options, "frame \(index) is past the storyboard's last frame (\(frameCount - 1))")
        }
        let fps = render.storyboard.canvas.fps
        // As a shard whose range starts at `index`: fast-forward with decoding deferred.
        let jumps = index > nextFrame
        if jumps { render.setDeferred(true) }
        for n in nextFrame..<index {
            render.step(toFrame: n)
            for player in render.players { player.current?.followRoom(at: Double(n) / fps) }
        }
        let t = Double(index) / fps
        if jumps { render.setDeferred(false) }
        render.step(toFrame: index)
        if jumps || !drawnAny {
            for player in render.players { player.current?.activate(at: t, previousFrame: t - 1 / fps) }
        }
        let spec = render.storyboard.canvas
        var canvas = RGBAImage(width: spec.width, height: spec.height, fill: spec.background)
        render.compose(at: t, into: &canvas)
        _ = render.flattenedForOpaqueOutputs(&canvas)
        nextFrame = index + 1
        drawnAny = true
        return canvas
    }

    /// The stories (indices) on screen at the last frame drawn: one at rest, two mid-turn.
    public var storiesOnScreen: [Int] {
        let canvas = render.storyboard.canvas
        let navigator = render.navigator
        return navigator.geometry.faces(pageOffset: navigator.pageOffset, width: canvas.width, height: canvas.height).map(\.page)
    }

    /// The timeline time frame `index` shows.
    public func time(ofFrame index: Int) -> Double { Double(index) / render.storyboard.canvas.fps }

    /// Stops the players and calls off the preloads still under way. Also done by `deinit`.
    public func close() {
        let t = Double(nextFrame) / render.storyboard.canvas.fps
        for player in render.players where player.isPlaying { player.stop(at: t) }
        render.posters.cancelProbes()
        render.posters.waitForRequests()
    }

    deinit { close() }
}
