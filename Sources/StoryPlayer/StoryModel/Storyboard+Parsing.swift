import Compositor
import Foundation

extension Storyboard {
    /// Reads and validates a storyboard file. Relative paths resolve against its folder.
    /// `parameters` are a variant's values of the storyboard's `parameters` (`--set`), by name;
    /// `row` names the variant in errors (a batch's row).
    public init(contentsOf path: String) throws(StoryboardError) {
        try self.init(contentsOf: path, parameters: [:])
    }

    /// Reads and validates a storyboard file, its `parameters` given these values (`--set`).
    public init(contentsOf path: String, parameters: [String: String], row: String? = nil) throws(StoryboardError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw StoryboardError(path: "", message: "cannot read storyboard \(path): \(Storyboard.whyUnreadable(path))")
        }
        let folder = (URL(fileURLWithPath: path).deletingLastPathComponent().path)
        do {
            try self.init(json: data, folder: folder, parameters: parameters, row: row)
        } catch where error.path.isEmpty && error.also.isEmpty {
            // An error of the file as a whole (its syntax, a top-level array) names the file.
            throw StoryboardError(path: "", message: "\(path): \(error.message)")
        }
    }

    /// Why a storyboard file cannot be read, in plain words.
    package static func whyUnreadable(_ path: String) -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return "no such file" }
        if isFolder.boolValue { return "it is a folder, not a file" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "permission denied" }
        return "the file could not be read"
    }

    /// Parses and validates storyboard JSON. The storyboard is read to its end even after an
    /// error; every error found (up to ``StoryboardError/reportLimit``) is thrown together.
    /// `parameters` fill the storyboard's `{{name}}` references (`Storyboard+Parameters`) before
    /// anything else is read, so every value a parameter gives is checked as a written one is.
    public init(json: Data, folder: String) throws(StoryboardError) {
        try self.init(json: json, folder: folder, parameters: [:])
    }

    /// Parses storyboard JSON, its `parameters` given these values (`--set`, a batch's row).
    public init(json: Data, folder: String, parameters: [String: String], row: String? = nil) throws(StoryboardError) {
        let problems = StoryboardProblems()
        // A UTF-8 byte order mark, as Windows editors write, is skipped as JSON readers do.
        let text = json.starts(with: [0xEF, 0xBB, 0xBF]) ? json.dropFirst(3) : json
        let parsed = Storyboard.fillingParameters(try JSONValue.parse(Data(text)), values: parameters, folder: folder, row: row,
                                                  problems: problems)
        var root = try ObjectReader(parsed, path: "", problems: problems)
        if let version = root.number("version", in: 1...1_000_000), version != Storyboard.version {
            problems.record(StoryboardError(path: "version", message: "this renderer reads storyboard version \(Int(Storyboard.version)), not \(ObjectReader.format(version))"))
        }
        let canvas = Storyboard.canvas(&root)
        let transition = Storyboard.transition(&root)
        let duration = root.number("duration", in: Storyboard.durations)
        let clock = root.choice("clock", of: PlaybackClock.self) ?? .virtual
        let timeouts = Storyboard.timeouts(&root)
        let latency = Storyboard.latency(&root) ?? LiveLatency()
        let loading = Storyboard.loading(&root)
        let protocols = Storyboard.protocols(&root)
        let overlayInset = Storyboard.overlayInset(&root)
        let preload = Storyboard.preload(&root)
        let present = Storyboard.presentation(&root)
        let feed = Storyboard.feed(&root)
        let gesture = Storyboard.gesture(&root)
        let backdrop = Storyboard.backdrop(&root, folder: folder)
        let music = try Storyboard.music(&root, folder: folder)
        let (stories, storyIDs) = Storyboard.stories(&root, hasFeed: feed != nil) {
            MediaSource(uri: $0, relativeTo: folder)
        }
        let (script, roomActions) = Storyboard.script(&root, stories: stories, storyIDs: storyIDs)
        root.rejectUnknownKeys()
        try problems.check()
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
        self.music = music
        self.timeouts = timeouts
        self.latency = latency
        self.loading = loading
        self.protocols = protocols
        sourceDigest = Storyboard.digest(json)
    }

    /// 64-bit FNV-1a of `bytes` (`FNV1a`), in hex.
    static func digest(_ bytes: Data) -> String {
        let hex = String(FNV1a.hash(bytes), radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    // MARK: - Stories

    /// The `stories` array. A story that cannot be read is noted and left out, but its id
    /// still counts as declared, so the script's references to it are not reported as well.
    static func stories(_ root: inout ObjectReader, hasFeed: Bool,
                        resolve: (String) -> MediaSource) -> (stories: [Story], ids: Set<String>) {
        let problems = root.problems
        let values = root.array("stories")
        if hasFeed && values != nil {
            problems.record(StoryboardError(path: "feed", message: "give either \"stories\" or \"feed\", not both"))
        }
        if !hasFeed && values == nil && !root.hasInvalidValue("stories") {
            problems.record(StoryboardError(path: "stories", message: "missing"))
        }
        if let values, values.isEmpty {
            problems.record(StoryboardError(path: "stories", message: "must list at least one story"))
        }
        var stories: [Story] = []
        var ids: Set<String> = []
        var seen: [String: Int] = [:]
        for (index, value) in (values ?? []).enumerated() {
            let path = "stories[\(index)]"
            guard let story = problems.attempt({ () throws(StoryboardError) in
                try Storyboard.story(value, path: path, index: index, problems: problems, resolve: resolve)
            }) else {
                if case .object(let fields) = value, case .string(let id)? = fields["id"] { ids.insert(id) }
                continue
            }
            if let first = seen[story.id] {
                problems.record(StoryboardError(path: "\(path).id", message: "duplicate id \"\(story.id)\" (also stories[\(first)].id)"))
                continue
            }
            seen[story.id] = index
            ids.insert(story.id)
            stories.append(story)
        }
        return (stories, ids)
    }

    /// One story; `resolve` turns each `uri` and `poster` into a source (against the storyboard's
    /// folder, or against a feed page's URL). Errors inside an item are noted in `problems` and
    /// the item is left out; the story throws when it cannot be read at all.
    package static func story(_ value: JSONValue, path: String, index: Int, problems: StoryboardProblems,
                      resolve: (String) -> MediaSource) throws(StoryboardError) -> Story {
        var reader = try ObjectReader(value, path: path, problems: problems)
        var id = reader.string("id") ?? "story\(index + 1)"
        if id.isEmpty {
            problems.record(StoryboardError(path: reader.path("id"), message: "must not be empty"))
            id = "story\(index + 1)"
        }
        let poster = reader.string("poster").map(resolve)
        let captions = Storyboard.captions(&reader, resolve: resolve)
        let layers = Storyboard.layers(&reader, resolve: resolve)
        let music = try Storyboard.music(&reader, resolve: resolve)
        if let room = try Storyboard.room(&reader, path: path, resolve: resolve) {
            reader.rejectUnknownKeys()
            var story = Story(id: id, poster: poster, items: [room])
            story.layers = layers
            story.music = music
            return story
        }
        guard let itemValues = reader.array("items") else {
            throw reader.missing("items")
        }
        guard !itemValues.isEmpty else {
            throw StoryboardError(path: reader.path("items"), message: "must list at least one item")
        }
        var items: [StoryItem] = []
        for (itemIndex, itemValue) in itemValues.enumerated() {
            let item = problems.attempt { () throws(StoryboardError) in
                try Storyboard.item(itemValue, path: "\(path).items[\(itemIndex)]", problems: problems, resolve: resolve)
            }
            if let item { items.append(item) }
        }
        reader.rejectUnknownKeys()
        var story = Story(id: id, poster: poster, items: items)
        story.captions = captions
        story.layers = layers
        story.music = music
        return story
    }

    private static func item(_ value: JSONValue, path: String, problems: StoryboardProblems,
                             resolve: (String) -> MediaSource) throws(StoryboardError) -> StoryItem {
        var item = try ObjectReader(value, path: path, problems: problems)
        let uri = item.string("uri")
        let duration = item.number("duration", in: Storyboard.durations)
        let live = item.bool("live")
        let itemPoster = item.string("poster").map(resolve)
        let latency = Storyboard.latency(&item)
        let toneMap = item.choice("tonemap", of: ToneMapCurve.self)
        let fit = item.choice("fit", of: PictureFit.self)
        let volume = Storyboard.volume(&item)
        let muted = item.bool("muted")
        let captions = Storyboard.captions(&item, resolve: resolve)
        let delivery = item.choice("protocol", of: SourceProtocol.self)
        let deliveryPath = item.path("protocol")
        let trimPath = item.path(item.raw("in") == nil ? "out" : "in")
        let trim = Storyboard.trim(&item)
        let layers = Storyboard.layers(&item, resolve: resolve)
        item.rejectUnknownKeys()
        guard let uri else { throw item.missing("uri") }
        guard !uri.isEmpty else { throw StoryboardError(path: item.path("uri"), message: "must not be empty") }
        let source = try Storyboard.source(resolve(uri), delivery: delivery, path: deliveryPath)
        if source.isWHEP, live == false {
            throw StoryboardError(path: item.path("live"), message: "a WebRTC (WHEP) source is always live")
        }
        var story = StoryItem(source: source, duration: duration, isLive: live ?? (source.isWHEP || MediaSource.isLive(uri: uri)),
                              poster: itemPoster)
        story.latency = latency
        story.captions = captions
        story.source.fit = fit
        if trim != nil, story.isLive {
            item.problems.record(StoryboardError(path: trimPath,
                                                 message: "a live item cannot be trimmed: it has no file time to cut"))
        } else {
            story.source.trim = trim
        }
        story.volume = volume ?? 1
        story.muted = muted ?? false
        story.layers = layers
        if let toneMap { story.source.toneMap = toneMap }
        return story
    }

    /// `captions` (a story's or an item's): a local WebVTT or SRT file, resolved as `uri`s are.
    /// Its text is read when a render needs it (`loadCaptions`), so a missing one is named as
    /// missing media is.
    private static func captions(_ reader: inout ObjectReader, resolve: (String) -> MediaSource) -> String? {
        guard let name = reader.string("captions") else { return nil }
        let path = reader.path("captions")
        guard !name.isEmpty else {
            reader.problems.record(StoryboardError(path: path, message: "must not be empty"))
            return nil
        }
        let source = resolve(name)
        if let refusal = source.refusal {
            reader.problems.record(StoryboardError(path: path, message: refusal))
            return nil
        }
        guard !source.isRemote else {
            reader.problems.record(StoryboardError(path: path, message: "must be a local WebVTT or SRT file, not a URL"))
            return nil
        }
        return source.location
    }

    /// `source` as an item's or participant's `protocol` says it is played: `whep` needs an
    /// `http(s)://` endpoint (an error at `path` otherwise).
    static func source(_ source: MediaSource, delivery: SourceProtocol?, path: String) throws(StoryboardError) -> MediaSource {
        guard delivery == .whep else { return source }
        if source.isWHEP { return source }
        guard let whep = source.playedThroughWHEP() else {
            throw StoryboardError(path: path, message: "\"whep\" needs an http:// or https:// endpoint in \"uri\"")
        }
        return whep
    }
}
