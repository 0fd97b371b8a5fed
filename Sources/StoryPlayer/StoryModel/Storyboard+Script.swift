import Compositor
import Foundation

// MARK: - The script

extension Storyboard {
    /// The `script` array: gestures, and a room's `pin`/`unpin`. An action that cannot be read
    /// is noted and left out; `storyIDs` are the ids the stories declared, for `pin`'s checks.
    static func script(_ root: inout ObjectReader, stories: [Story], storyIDs: Set<String>)
        -> (gestures: [ScriptAction], roomActions: [RoomAction]) {
        let problems = root.problems
        // Stories with errors of their own: a pin may well name one of their participants.
        let unreadStories = storyIDs.subtracting(stories.map(\.id))
        var gestures: [ScriptAction] = []
        var roomActions: [RoomAction] = []
        for (index, value) in (root.array("script") ?? []).enumerated() {
            let path = "script[\(index)]"
            if let action = problems.attempt({ () throws(StoryboardError) in try Storyboard.roomAction(value, path: path, problems: problems) }) {
                guard let action else {
                    if let gesture = problems.attempt({ () throws(StoryboardError) in try Storyboard.action(value, path: path, problems: problems) }) {
                        gestures.append(gesture)
                    }
                    continue
                }
                if let story = action.story, !storyIDs.contains(story) {
                    problems.record(StoryboardError(path: "\(path).story", message: "no story has id \"\(story)\""))
                    continue
                }
                let rooms = stories.filter { action.story == nil || $0.id == action.story }.compactMap { $0.items.first?.room }
                let mayBeInUnreadStory = action.story.map(unreadStories.contains) ?? !unreadStories.isEmpty
                if let participant = action.participant {
                    guard mayBeInUnreadStory || rooms.contains(where: { $0.participants.contains { $0.id == participant } }) else {
                        problems.record(StoryboardError(path: "\(path).participant",
                                                        message: "no room\(action.story.map { " in story \"\($0)\"" } ?? "") has participant \"\(participant)\""))
                        continue
                    }
                } else if !mayBeInUnreadStory && rooms.isEmpty {
                    problems.record(StoryboardError(path: action.story == nil ? "\(path).action" : "\(path).story",
                                                    message: action.story.map { "story \"\($0)\" is not a room" } ?? "no story is a room"))
                    continue
                }
                roomActions.append(action)
            }
        }
        return (gestures, roomActions)
    }

    // MARK: - Gestures

    private static func action(_ value: JSONValue, path: String, problems: StoryboardProblems) throws(StoryboardError) -> ScriptAction {
        var reader = try ObjectReader(value, path: path, problems: problems)
        // Both read before either is required, so one run names every mistake of the action.
        let at = reader.number("at", in: 0...Storyboard.durations.upperBound)
        let action = reader.string("action")
        let unknownAction = action.flatMap { unknownActionError($0, at: reader.path("action")) }
        guard let at else {
            if let unknownAction { problems.record(unknownAction) }
            throw reader.missing("at")
        }
        if let unknownAction { throw unknownAction }
        guard let action else { throw reader.missing("action") }
        let gesture = try Storyboard.gesture(action, reader: &reader)
        // Only a gesture that was understood can say which keys it does not take.
        reader.rejectUnknownKeys()
        return ScriptAction(at: at, gesture: gesture)
    }

    /// An `action` no script may name, with the nearest name that it may have meant.
    private static func unknownActionError(_ action: String, at path: String) -> StoryboardError? {
        guard !Storyboard.actionNames.contains(action) else { return nil }
        let nearest = Storyboard.actionNames
            .map { (name: $0, distance: ObjectReader.editDistance(action.lowercased(), $0)) }
            .filter { $0.distance <= 2 }.min { ($0.distance, $0.name) < ($1.distance, $1.name) }
        return StoryboardError(path: path, message: "unknown action \"\(action)\""
            + (nearest.map { "; did you mean \"\($0.name)\"?" } ?? " (expected \(Storyboard.actionNames.joined(separator: ", ")))"))
    }

    /// A gesture's `transition` block: `style` and `axis`, as the storyboard's takes them.
    private static func gestureTransition(_ reader: inout ObjectReader) -> GestureTransition? {
        guard var block = reader.object("transition") else { return nil }
        let transition = GestureTransition(style: block.choice("style", of: TransitionStyle.self),
                                           axis: block.choice("axis", of: TransitionAxis.self))
        block.rejectUnknownKeys()
        return transition
    }

    /// The gesture `action` names, from the keys it takes.
    private static func gesture(_ action: String, reader: inout ObjectReader) throws(StoryboardError) -> ScriptAction.Gesture {
        switch action {
        case "swipe":
            guard let direction = reader.choice("direction", of: ScriptAction.Direction.self) else {
                throw reader.missing("direction")
            }
            // `style` alone is the older form of `"transition": {"style": …}`.
            let style = reader.choice("style", of: TransitionStyle.self)
            var transition = gestureTransition(&reader)
            if let style, transition?.style == nil { transition = GestureTransition(style: style, axis: transition?.axis) }
            return .swipe(direction, transition: transition)
        case "drag":
            guard let pages = reader.number("to", in: -1...1) else {
                throw reader.missing("to")
            }
            return .drag(pages: pages, seconds: reader.number("over", in: 0...60) ?? 0,
                         releaseVelocity: reader.number("release_velocity", in: -100_000...100_000),
                         transition: gestureTransition(&reader))
        case "pull":
            guard let progress = reader.number("to", in: 0...1) else {
                throw reader.missing("to")
            }
            return .pull(progress: progress, seconds: reader.number("over", in: 0...60) ?? 0,
                         releaseVelocity: reader.number("release_velocity", in: -100_000...100_000))
        case "release":
            return .release
        case "hold":
            guard let seconds = reader.number("for", in: 0.01...600) else {
                throw reader.missing("for")
            }
            return .hold(seconds: seconds)
        case "dismiss":
            return .dismiss
        case "tap":
            return try tap(&reader)
        default:
            preconditionFailure("an action outside actionNames was refused above")
        }
    }

    /// A tap names its side or its x, not both.
    private static func tap(_ reader: inout ObjectReader) throws(StoryboardError) -> ScriptAction.Gesture {
        let side = reader.choice("side", of: TapSide.self)
        let x = reader.number("x", in: 0...1)
        switch (side, x) {
        case (nil, nil):
            // A side or an x that was given but unusable has been reported as such: it is not missing.
            if reader.hasInvalidValue("x") { throw reader.missing("x") }
            if reader.hasInvalidValue("side") { throw reader.missing("side") }
            throw StoryboardError(path: reader.path("side"), message: "missing (a tap needs \"side\" or \"x\")")
        case (.some, .some):
            throw StoryboardError(path: reader.path("x"), message: "give either \"side\" or \"x\", not both")
        case let (side?, nil):
            return .tap(x: side == .left ? 0 : 1)
        case let (nil, x?):
            return .tap(x: x)
        }
    }

    private enum TapSide: String, CaseIterable { case left, right }

    /// Every `action` a script may name.
    static let actionNames = ["swipe", "drag", "pull", "release", "tap", "hold", "dismiss", "pin", "unpin", "layout", "page"]
}

// MARK: - Gestures that never end

extension ScriptAction.Gesture {
    /// The `action` the script names it by.
    public var name: String {
        switch self {
        case .swipe: "swipe"
        case .drag: "drag"
        case .pull: "pull"
        case .release: "release"
        case .tap: "tap"
        case .hold: "hold"
        case .dismiss: "dismiss"
        }
    }
}

extension Storyboard {
    /// Throws when a `drag` or `pull` is never released (no `release` or `dismiss` after it) in
    /// a storyboard with no `duration`. The finger stays down, the items stay paused, and the
    /// render would run to its open-ended limit, an hour of frames: a forgotten `release` is
    /// told before the first frame, as a storyboard error (the CLI exits 2).
    public func checkFingersLift() throws(StoryboardError) {
        guard duration == nil else { return }
        var held: ScriptAction?
        let inOrder = script.enumerated().sorted { ($0.element.at, $0.offset) < ($1.element.at, $1.offset) }.map(\.element)
        for action in inOrder {
            switch action.gesture {
            case .drag, .pull: if held == nil { held = action }
            case .release: held = nil
            // A tap while a finger is down is ignored (`ViewerNavigator.perform`), so it lifts
            // nothing; after a dismiss nothing is performed.
            case .dismiss: return
            default: break
            }
        }
        guard let held else { return }
        throw StoryboardError(path: "script", message: "the \(held.gesture.name) at \(ObjectReader.format(held.at)) s is never released, and the "
            + "storyboard has no \"duration\": the finger would stay down and the render run for an hour "
            + "(add {\"at\": …, \"action\": \"release\"} after it, or a \"duration\")")
    }
}
