import Compositor
import Foundation

extension Storyboard {
    /// Reads and validates a storyboard file. Relative paths resolve against its folder.
    public init(contentsOf path: String) throws(StoryboardError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoryboardError(path: "", message: "cannot read storyboard \(path)")
        }
        let folder = (URL(fileURLWithPath: path).deletingLastPathComponent().path)
        do {
            try self.init(json: data, folder: folder)
        } catch where error.path.isEmpty && error.message.hasPrefix("not valid JSON") {
            // Syntax errors name the file as well as the line and column.
            throw StoryboardError(path: "", message: "\(path): \(error.message)")
        }
    }

    /// Parses and validates storyboard JSON.
    public init(json: Data, folder: String) throws(StoryboardError) {
        var root = try ObjectReader(try JSONValue.parse(json), path: "")
        if let version = try root.number("version", in: 1...1_000_000), version != Storyboard.version {
            throw StoryboardError(path: "version", message: "this renderer reads storyboard version \(Int(Storyboard.version)), not \(ObjectReader.format(version))")
        }
        var canvas = Canvas()
        if var block = try root.object("canvas") {
            canvas.width = try block.integer("width", in: Canvas.sides) ?? canvas.width
            canvas.height = try block.integer("height", in: Canvas.sides) ?? canvas.height
            canvas.fps = try block.number("fps", in: Canvas.frameRates) ?? canvas.fps
            if let hex = try block.string("background") {
                guard let color = RGBAColor(hex: hex), hex.count == 7 else {
                    throw StoryboardError(path: block.path("background"), message: "expected a colour like \"#1a2b3c\", got \"\(hex)\"")
                }
                canvas.background = color
            }
            try block.rejectUnknownKeys()
        }
        var transition = Transition()
        if var block = try root.object("transition") {
            transition.geometry.style = try block.choice("style", of: TransitionStyle.self) ?? transition.geometry.style
            transition.geometry.axis = try block.choice("axis", of: TransitionAxis.self) ?? transition.geometry.axis
            transition.duration = try block.number("duration", in: 0...10) ?? transition.duration
            transition.geometry.perspective = try block.number("perspective", in: 0.1...1000) ?? transition.geometry.perspective
            transition.geometry.shading = try block.number("shading", in: 0...1) ?? transition.geometry.shading
            transition.start = try block.choice("start", of: PlaybackStart.self) ?? transition.start
            try block.rejectUnknownKeys()
        }
        let duration = try root.number("duration", in: Storyboard.durations)
        let clock = try root.choice("clock", of: PlaybackClock.self) ?? .virtual
        var timeouts = Timeouts()
        if var block = try root.object("timeouts") {
            timeouts.open = try block.number("open", in: Timeouts.allowed) ?? timeouts.open
            timeouts.read = try block.number("read", in: Timeouts.allowed) ?? timeouts.read
            timeouts.retries = try block.integer("retries", in: 0...100) ?? timeouts.retries
            try block.rejectUnknownKeys()
        }
        var loading = LoadingLook()
        if var block = try root.object("loading") {
            loading.blur = try block.number("blur", in: 0...200) ?? loading.blur
            loading.fade = try block.number("fade", in: 0...5) ?? loading.fade
            try block.rejectUnknownKeys()
        }
        var protocols: [String]?
        if let values = try root.array("protocols") {
            protocols = []
            for (index, value) in values.enumerated() {
                guard case .string(let name) = value, !name.isEmpty else {
                    throw StoryboardError(path: "protocols[\(index)]", message: "expected a protocol name, got \(value.kind)")
                }
                let known = MediaSource.networkProtocols + MediaSource.localProtocols
                guard known.contains(name) else {
                    throw StoryboardError(path: "protocols[\(index)]",
                                          message: "\"\(name)\" is not an allowed protocol (\(known.joined(separator: ", ")))")
                }
                protocols?.append(name)
            }
        }
        var overlayInset = Storyboard.defaultOverlayInset
        if var block = try root.object("overlay") {
            overlayInset = try block.number("inset", in: 0...200) ?? overlayInset
            try block.rejectUnknownKeys()
        }
        var preload = PreloadWindow()
        if var block = try root.object("preload") {
            preload.behind = try block.integer("behind", in: 0...20) ?? preload.behind
            preload.ahead = try block.integer("ahead", in: 0...20) ?? preload.ahead
            try block.rejectUnknownKeys()
        }
        var present: Presentation?
        if var block = try root.object("present") {
            guard let values = try block.array("from") else {
                throw block.missing("from")
            }
            let numbers = values.compactMap { value -> Double? in if case .number(let n) = value { return n } else { return nil } }
            guard numbers.count == 3, values.count == 3, numbers.allSatisfy({ (0...1).contains($0) }) else {
                throw StoryboardError(path: block.path("from"), message: "expected [x, y, r], three fractions of the screen from 0 to 1")
            }
            var bubble = Presentation(x: numbers[0], y: numbers[1], r: numbers[2])
            bubble.duration = try block.number("duration", in: 0.01...10) ?? bubble.duration
            present = bubble
            try block.rejectUnknownKeys()
        }
        var feed: Feed?
        if var block = try root.object("feed") {
            guard let url = try block.string("url"), !url.isEmpty else {
                throw block.missing("url")
            }
            var pages = Feed(url: url)
            pages.pageSize = try block.integer("page_size", in: 1...100) ?? pages.pageSize
            feed = pages
            try block.rejectUnknownKeys()
        }
        var gesture = GestureSettings()
        if var block = try root.object("gesture") {
            gesture.finishProgress = try block.number("finish_progress", in: 0.01...1) ?? gesture.finishProgress
            gesture.flickVelocity = try block.number("flick_velocity", in: 0...100_000) ?? gesture.flickVelocity
            if var spring = try block.object("spring") {
                gesture.springResponse = try spring.number("response", in: 0.01...10) ?? gesture.springResponse
                gesture.springDamping = try spring.number("damping", in: 0.05...10) ?? gesture.springDamping
                try spring.rejectUnknownKeys()
            }
            gesture.curve = try block.choice("curve", of: GestureSettings.Curve.self) ?? gesture.curve
            try block.rejectUnknownKeys()
        }
        var backdrop: Backdrop?
        if var block = try root.object("backdrop") {
            var look = Backdrop()
            if let picture = try block.string("picture") {
                guard !picture.isEmpty else { throw StoryboardError(path: block.path("picture"), message: "must not be empty") }
                look.picture = MediaSource(uri: picture, relativeTo: folder)
            }
            look.blur = try block.number("blur", in: 0...200) ?? look.blur
            look.dim = try block.number("dim", in: 0...1) ?? look.dim
            backdrop = look
            try block.rejectUnknownKeys()
        }
        let storyValues = try root.array("stories")
        if feed != nil && storyValues != nil {
            throw StoryboardError(path: "feed", message: "give either \"stories\" or \"feed\", not both")
        }
        if feed == nil && storyValues == nil {
            throw StoryboardError(path: "stories", message: "missing")
        }
        if let storyValues, storyValues.isEmpty {
            throw StoryboardError(path: "stories", message: "must list at least one story")
        }
        var stories: [Story] = []
        var seen: [String: Int] = [:]
        for (index, value) in (storyValues ?? []).enumerated() {
            let story = try Storyboard.story(value, path: "stories[\(index)]", index: index) {
                MediaSource(uri: $0, relativeTo: folder)
            }
            if let first = seen[story.id] {
                throw StoryboardError(path: "stories[\(index)].id", message: "duplicate id \"\(story.id)\" (also stories[\(first)].id)")
            }
            seen[story.id] = index
            stories.append(story)
        }
        var script: [ScriptAction] = []
        var roomActions: [RoomAction] = []
        for (index, value) in (try root.array("script") ?? []).enumerated() {
            if let action = try Storyboard.roomAction(value, path: "script[\(index)]") {
                guard action.story.map({ seen[$0] != nil }) ?? true else {
                    throw StoryboardError(path: "script[\(index)].story", message: "no story has id \"\(action.story!)\"")
                }
                let rooms = stories.filter { action.story == nil || $0.id == action.story }.compactMap { $0.items.first?.room }
                guard rooms.contains(where: { $0.participants.contains { $0.id == action.participant } }) else {
                    throw StoryboardError(path: "script[\(index)].participant",
                                          message: "no room\(action.story.map { " in story \"\($0)\"" } ?? "") has participant \"\(action.participant)\"")
                }
                roomActions.append(action)
            } else {
                script.append(try Storyboard.action(value, path: "script[\(index)]"))
            }
        }
        try root.rejectUnknownKeys()
        // A stable sort: gestures at the same moment keep the order they were written in.
        let ordered = script.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        self.init(canvas: canvas, transition: transition, duration: duration, stories: stories,
                  script: ordered, folder: folder)
        self.clock = clock
        self.roomActions = roomActions.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        self.overlayInset = overlayInset
        self.preload = preload
        self.present = present
        self.feed = feed
        self.gesture = gesture
        self.backdrop = backdrop
        self.timeouts = timeouts
        self.loading = loading
        self.protocols = protocols
    }

    // MARK: - Stories

    /// One story; `resolve` turns each `uri` and `poster` into a source (against the storyboard's
    /// folder, or against a feed page's URL).
    static func story(_ value: JSONValue, path: String, index: Int,
                      resolve: (String) -> MediaSource) throws(StoryboardError) -> Story {
        var reader = try ObjectReader(value, path: path)
        let id = try reader.string("id") ?? "story\(index + 1)"
        guard !id.isEmpty else { throw StoryboardError(path: reader.path("id"), message: "must not be empty") }
        let poster = try reader.string("poster").map(resolve)
        if let room = try Storyboard.room(&reader, path: path, resolve: resolve) {
            try reader.rejectUnknownKeys()
            return Story(id: id, poster: poster, items: [room])
        }
        guard let itemValues = try reader.array("items") else {
            throw reader.missing("items")
        }
        guard !itemValues.isEmpty else {
            throw StoryboardError(path: reader.path("items"), message: "must list at least one item")
        }
        var items: [StoryItem] = []
        for (itemIndex, itemValue) in itemValues.enumerated() {
            var item = try ObjectReader(itemValue, path: "\(path).items[\(itemIndex)]")
            guard let uri = try item.string("uri") else {
                throw item.missing("uri")
            }
            guard !uri.isEmpty else { throw StoryboardError(path: item.path("uri"), message: "must not be empty") }
            let duration = try item.number("duration", in: Storyboard.durations)
            let live = try item.bool("live") ?? false
            let itemPoster = try item.string("poster").map(resolve)
            try item.rejectUnknownKeys()
            items.append(StoryItem(source: resolve(uri), duration: duration,
                                   isLive: live, poster: itemPoster))
        }
        try reader.rejectUnknownKeys()
        return Story(id: id, poster: poster, items: items)
    }

    // MARK: - Script

    private static func action(_ value: JSONValue, path: String) throws(StoryboardError) -> ScriptAction {
        var reader = try ObjectReader(value, path: path)
        guard let at = try reader.number("at", in: 0...Storyboard.durations.upperBound) else {
            throw reader.missing("at")
        }
        guard let action = try reader.string("action") else {
            throw reader.missing("action")
        }
        let gesture: ScriptAction.Gesture
        switch action {
        case "swipe":
            guard let direction = try reader.choice("direction", of: ScriptAction.Direction.self) else {
                throw reader.missing("direction")
            }
            gesture = .swipe(direction, style: try reader.choice("style", of: TransitionStyle.self))
        case "drag":
            guard let pages = try reader.number("to", in: -1...1) else {
                throw reader.missing("to")
            }
            gesture = .drag(pages: pages, seconds: try reader.number("over", in: 0...60) ?? 0,
                            releaseVelocity: try reader.number("release_velocity", in: -100_000...100_000))
        case "pull":
            guard let progress = try reader.number("to", in: 0...1) else {
                throw StoryboardError(path: reader.path("to"), message: "missing")
            }
            gesture = .pull(progress: progress, seconds: try reader.number("over", in: 0...60) ?? 0,
                            releaseVelocity: try reader.number("release_velocity", in: -100_000...100_000))
        case "release":
            gesture = .release
        case "hold":
            guard let seconds = try reader.number("for", in: 0.01...600) else {
                throw reader.missing("for")
            }
            gesture = .hold(seconds: seconds)
        case "dismiss":
            gesture = .dismiss
        case "tap":
            let side = try reader.choice("side", of: TapSide.self)
            let x = try reader.number("x", in: 0...1)
            switch (side, x) {
            case (nil, nil):
                throw StoryboardError(path: reader.path("side"), message: "missing (a tap needs \"side\" or \"x\")")
            case (.some, .some):
                throw StoryboardError(path: reader.path("x"), message: "give either \"side\" or \"x\", not both")
            case let (side?, nil):
                gesture = .tap(x: side == .left ? 0 : 1)
            case let (nil, x?):
                gesture = .tap(x: x)
            }
        default:
            throw StoryboardError(path: reader.path("action"),
                                  message: "unknown action \"\(action)\" (expected swipe, drag, pull, release, tap, hold, dismiss, pin or unpin)")
        }
        try reader.rejectUnknownKeys()
        return ScriptAction(at: at, gesture: gesture)
    }

    private enum TapSide: String, CaseIterable { case left, right }
}

// MARK: - Reading JSON objects with paths
