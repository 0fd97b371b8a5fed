import Foundation

// MARK: - Rooms in the storyboard

extension Storyboard {
    /// A story's `room` block, as its one item: `{"room": {"participants": [...]}, "duration": 20}`.
    /// Nil when the story has `items` instead.
    static func room(_ reader: inout ObjectReader, path: String,
                     resolve: (String) -> MediaSource) throws(StoryboardError) -> StoryItem? {
        guard let value = reader.object("room") else {
            if reader.number("duration", in: Storyboard.durations) != nil {
                throw StoryboardError(path: reader.path("duration"), message: "a story's own duration is for rooms; give items theirs")
            }
            return nil
        }
        if reader.array("items") != nil {
            throw StoryboardError(path: reader.path("items"), message: "a story has either items or a room, not both")
        }
        var room = value
        let duration = reader.number("duration", in: Storyboard.durations) ?? Room.defaultDuration
        guard let values = room.array("participants") else {
            throw room.missing("participants")
        }
        guard !values.isEmpty else { throw StoryboardError(path: room.path("participants"), message: "must list at least one participant") }
        var participants: [RoomParticipant] = []
        var seen: [String: Int] = [:]
        for (index, value) in values.enumerated() {
            participants.append(try Storyboard.participant(value, path: "\(room.path("participants"))[\(index)]", index: index,
                                                           seen: &seen, problems: reader.problems, resolve: resolve))
        }
        Storyboard.checkSharers(participants, path: room.path("participants"), problems: reader.problems)
        let layout = room.choice("layout", of: RoomLayoutStyle.self) ?? .spotlight
        let tilesPerPage = room.integer("tiles_per_page", in: Room.tilesPerPageRange)
        let stageSize = room.integer("stage_size", in: Room.stageSizes) ?? Room.defaultStageSize
        // The storyboard's own shape invites a room's length inside the room; it is the story's.
        if room.present("duration") {
            reader.problems.record(StoryboardError(path: room.path("duration"),
                                                   message: "a room lasts its story's \"duration\": put it beside \"room\", at \(reader.path("duration"))"))
        }
        room.rejectUnknownKeys()
        var item = StoryItem(source: participants[0].source, duration: duration)
        item.room = Room(participants: participants, layout: layout, tilesPerPage: tilesPerPage, stageSize: stageSize)
        return item
    }

    /// One entry of a room's `participants` (`index` in the list); `seen` holds the ids before
    /// it, so a duplicate names the first.
    private static func participant(_ value: JSONValue, path: String, index: Int, seen: inout [String: Int],
                                    problems: StoryboardProblems, resolve: (String) -> MediaSource) throws(StoryboardError) -> RoomParticipant {
        var entry = try ObjectReader(value, path: path, problems: problems)
        guard let id = entry.string("id") else { throw entry.missing("id") }
        guard !id.isEmpty else { throw StoryboardError(path: entry.path("id"), message: "must not be empty") }
        if let first = seen[id] {
            throw StoryboardError(path: entry.path("id"), message: "duplicate id \"\(id)\" (also participants[\(first)].id)")
        }
        seen[id] = index
        guard let uri = entry.string("uri") else { throw entry.missing("uri") }
        guard !uri.isEmpty else { throw StoryboardError(path: entry.path("uri"), message: "must not be empty") }
        let delivery = entry.choice("protocol", of: SourceProtocol.self)
        let source = try Storyboard.source(resolve(uri), delivery: delivery, path: entry.path("protocol"))
        let byProtocol = source.isWHEP || MediaSource.isLive(uri: uri)
        if source.isWHEP, entry.bool("live") == false {
            throw StoryboardError(path: entry.path("live"), message: "a WebRTC (WHEP) source is always live")
        }
        let added = RoomParticipant(
            id: id, source: source, avatar: entry.string("avatar").map(resolve),
            pinned: entry.bool("pinned") ?? false, screensharing: entry.bool("screensharing") ?? false,
            screenshare: entry.bool("screenshare") ?? false, sharer: entry.string("sharer"),
            isLive: entry.bool("live") ?? byProtocol)
        if added.sharer != nil, !added.screenshare {
            problems.record(StoryboardError(path: entry.path("sharer"), message: "only a \"screenshare\": true participant has a sharer"))
        } else if added.sharer == id {
            problems.record(StoryboardError(path: entry.path("sharer"), message: "a screen share's sharer is the participant whose camera it shows beside it, not itself"))
        }
        entry.rejectUnknownKeys()
        return added
    }

    /// Each screen share's sharer is a camera participant of the room (`path`: the list's).
    private static func checkSharers(_ participants: [RoomParticipant], path: String, problems: StoryboardProblems) {
        for (index, participant) in participants.enumerated() {
            guard let sharer = participant.sharer, participant.screenshare, sharer != participant.id else { continue }
            if !participants.contains(where: { $0.id == sharer && !$0.screenshare }) {
                problems.record(StoryboardError(path: "\(path)[\(index)].sharer",
                                                message: "no camera participant has id \"\(sharer)\" (ids: \(participants.filter { !$0.screenshare }.map(\.id).joined(separator: ", ")))"))
            }
        }
    }

    /// The script's actions for rooms.
    static let roomActionNames = ["pin", "unpin", "layout", "page"]

    /// A `pin`, `unpin`, `layout` or `page` script action; nil for any other action.
    static func roomAction(_ value: JSONValue, path: String, problems: StoryboardProblems) throws(StoryboardError) -> RoomAction? {
        guard case .object(let fields) = value, case .string(let name)? = fields["action"], Storyboard.roomActionNames.contains(name) else {
            return nil
        }
        var reader = try ObjectReader(value, path: path, problems: problems)
        _ = reader.string("action")
        let at = reader.number("at", in: 0...Storyboard.durations.upperBound)
        let change: RoomAction.Change
        switch name {
        case "layout":
            guard let layout = reader.choice("layout", of: RoomLayoutStyle.self) else { throw reader.missing("layout") }
            change = .layout(layout)
        case "page":
            guard let page = reader.integer("page", in: 1...100) else { throw reader.missing("page") }
            change = .page(page)
        default:
            guard let participant = reader.string("participant") else { throw reader.missing("participant") }
            change = .pin(participant: participant, pins: name == "pin")
        }
        guard let at else { throw reader.missing("at") }
        let story = reader.string("story")
        reader.rejectUnknownKeys()
        return RoomAction(at: at, story: story, change: change)
    }
}

// MARK: - Page actions to no page

extension Storyboard {
    /// A `page` action asking for a page its room's grid never has (its participants, screen
    /// shares aside, fill fewer pages at the canvas's tiles a page): the grid shows its last page
    /// instead, and a typo in a page number would go unsaid. One notice each, for the render's
    /// `notices` (stderr and summary.json).
    public var roomPageNotices: [String] {
        roomActions.compactMap { action in
            guard case .page(let page) = action.change else { return nil }
            let rooms = stories.filter { action.story == nil || $0.id == action.story }
                .compactMap { story in story.items.first?.room.map { (story: story.id, room: $0) } }
            let grids = rooms.map { story, room in
                let people = room.participants.filter { !$0.screenshare }.count
                let perPage = room.tilesPerPage(width: canvas.width, height: canvas.height)
                return (story: story, people: people, perPage: perPage, pages: max(1, (people + perPage - 1) / perPage))
            }
            guard let most = grids.max(by: { $0.pages < $1.pages }), page > most.pages else { return nil }
            let when = "the page action at \(ObjectReader.format(action.at)) s asks for page \(page)"
            guard grids.count == 1 else {
                return "script: \(when), and no room's grid has more than \(most.pages) page\(most.pages == 1 ? "" : "s"): the room shown shows its last"
            }
            return "script: \(when) of story \"\(most.story)\"'s grid, which has at most \(most.pages) page\(most.pages == 1 ? "" : "s") "
                + "(\(most.people) participant\(most.people == 1 ? "" : "s"), \(most.perPage) a page): it shows its last"
        }
    }
}
