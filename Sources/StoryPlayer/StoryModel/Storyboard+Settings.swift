import Compositor
import Foundation

// MARK: - The storyboard's settings blocks

/// Each reads one top-level block. A value with an error is noted in the reader's problems
/// and left at its default, so the rest of the storyboard is still read.
extension Storyboard {
    static func canvas(_ root: inout ObjectReader) -> Canvas {
        var canvas = Canvas()
        guard var block = root.object("canvas") else { return canvas }
        canvas.width = block.integer("width", in: Canvas.sides) ?? canvas.width
        canvas.height = block.integer("height", in: Canvas.sides) ?? canvas.height
        canvas.fps = block.number("fps", in: Canvas.frameRates) ?? canvas.fps
        canvas.fit = block.choice("fit", of: PictureFit.self) ?? canvas.fit
        if let text = block.string("background") {
            if let color = RGBAColor(parsing: text) {
                canvas.background = color
            } else {
                block.problems.record(StoryboardError(path: block.path("background"),
                                                      message: "expected a colour (\(RGBAColor.spokenForms)), got \"\(text)\""))
            }
        }
        block.rejectUnknownKeys()
        return canvas
    }

    static func transition(_ root: inout ObjectReader) -> Transition {
        var transition = Transition()
        guard var block = root.object("transition") else { return transition }
        transition.geometry.style = block.choice("style", of: TransitionStyle.self) ?? transition.geometry.style
        transition.geometry.axis = block.choice("axis", of: TransitionAxis.self) ?? transition.geometry.axis
        transition.duration = block.number("duration", in: 0...10) ?? transition.duration
        transition.geometry.perspective = block.number("perspective", in: 0.1...1000) ?? transition.geometry.perspective
        transition.geometry.shading = block.number("shading", in: 0...1) ?? transition.geometry.shading
        transition.start = block.choice("start", of: PlaybackStart.self) ?? transition.start
        block.rejectUnknownKeys()
        return transition
    }

    static func timeouts(_ root: inout ObjectReader) -> Timeouts {
        var timeouts = Timeouts()
        guard var block = root.object("timeouts") else { return timeouts }
        timeouts.open = block.number("open", in: Timeouts.allowed) ?? timeouts.open
        timeouts.read = block.number("read", in: Timeouts.allowed) ?? timeouts.read
        timeouts.retries = block.integer("retries", in: 0...100) ?? timeouts.retries
        block.rejectUnknownKeys()
        return timeouts
    }

    static func loading(_ root: inout ObjectReader) -> LoadingLook {
        var loading = LoadingLook()
        guard var block = root.object("loading") else { return loading }
        loading.blur = block.number("blur", in: 0...200) ?? loading.blur
        loading.fade = block.number("fade", in: 0...5) ?? loading.fade
        block.rejectUnknownKeys()
        return loading
    }

    static func protocols(_ root: inout ObjectReader) -> [String]? {
        guard let values = root.array("protocols") else { return nil }
        let known = MediaSource.networkProtocols + MediaSource.localProtocols
        var protocols: [String] = []
        for (index, value) in values.enumerated() {
            guard case .string(let name) = value, !name.isEmpty else {
                root.problems.record(StoryboardError(path: "protocols[\(index)]", message: "expected a protocol name, got \(value.kind)"))
                continue
            }
            guard known.contains(name) else {
                root.problems.record(StoryboardError(path: "protocols[\(index)]",
                                                     message: "\"\(name)\" is not an allowed protocol (\(known.joined(separator: ", ")))"))
                continue
            }
            protocols.append(name)
        }
        return protocols
    }

    static func overlayInset(_ root: inout ObjectReader) -> Double {
        guard var block = root.object("overlay") else { return Storyboard.defaultOverlayInset }
        let inset = block.number("inset", in: 0...200) ?? Storyboard.defaultOverlayInset
        block.rejectUnknownKeys()
        return inset
    }

    static func preload(_ root: inout ObjectReader) -> PreloadWindow {
        var preload = PreloadWindow()
        guard var block = root.object("preload") else { return preload }
        preload.behind = block.integer("behind", in: 0...20) ?? preload.behind
        preload.ahead = block.integer("ahead", in: 0...20) ?? preload.ahead
        block.rejectUnknownKeys()
        return preload
    }

    static func presentation(_ root: inout ObjectReader) -> Presentation? {
        guard var block = root.object("present") else { return nil }
        defer { block.rejectUnknownKeys() }
        let duration = block.number("duration", in: 0.01...10)
        // Without `from` the viewer opens from the small bubble in the centre it closes into
        // when nothing is presented (`ViewerNavigator.bubble`).
        guard let values = block.array("from") else {
            if block.hasInvalidValue("from") { return nil }
            let centre = Presentation.centreBubble
            return Presentation(x: centre.x, y: centre.y, r: centre.r, duration: duration ?? Presentation.defaultDuration)
        }
        let numbers = values.compactMap { value -> Double? in if case .number(let n) = value { return n } else { return nil } }
        guard numbers.count == 3, values.count == 3, numbers.allSatisfy({ (0...1).contains($0) }) else {
            block.problems.record(StoryboardError(path: block.path("from"), message: "expected [x, y, r], three fractions of the screen from 0 to 1"))
            return nil
        }
        var bubble = Presentation(x: numbers[0], y: numbers[1], r: numbers[2])
        bubble.duration = duration ?? bubble.duration
        return bubble
    }

    static func feed(_ root: inout ObjectReader) -> Feed? {
        guard var block = root.object("feed") else { return nil }
        defer { block.rejectUnknownKeys() }
        guard let url = block.string("url"), !url.isEmpty else {
            block.problems.record(block.missing("url"))
            return nil
        }
        var pages = Feed(url: url)
        pages.pageSize = block.integer("page_size", in: 1...100) ?? pages.pageSize
        return pages
    }

    static func gesture(_ root: inout ObjectReader) -> GestureSettings {
        var gesture = GestureSettings()
        guard var block = root.object("gesture") else { return gesture }
        gesture.finishProgress = block.number("finish_progress", in: 0.01...1) ?? gesture.finishProgress
        gesture.flickVelocity = block.number("flick_velocity", in: 0...100_000) ?? gesture.flickVelocity
        if var spring = block.object("spring") {
            gesture.springResponse = spring.number("response", in: 0.01...10) ?? gesture.springResponse
            gesture.springDamping = spring.number("damping", in: 0.05...10) ?? gesture.springDamping
            spring.rejectUnknownKeys()
        }
        gesture.curve = block.choice("curve", of: GestureSettings.Curve.self) ?? gesture.curve
        block.rejectUnknownKeys()
        return gesture
    }

    static func backdrop(_ root: inout ObjectReader, folder: String) -> Backdrop? {
        guard var block = root.object("backdrop") else { return nil }
        var look = Backdrop()
        if let picture = block.string("picture") {
            if picture.isEmpty {
                block.problems.record(StoryboardError(path: block.path("picture"), message: "must not be empty"))
            } else {
                look.picture = MediaSource(uri: picture, relativeTo: folder)
            }
        }
        look.blur = block.number("blur", in: 0...200) ?? look.blur
        look.dim = block.number("dim", in: 0...1) ?? look.dim
        block.rejectUnknownKeys()
        return look
    }
}
