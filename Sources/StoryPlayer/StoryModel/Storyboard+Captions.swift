// MARK: - The captions files a storyboard names

extension Storyboard {
    /// One `captions` key: an item's (its cues on the item's media time) or a story's (on the
    /// story's time: the items before the current one, as long as each played, plus the
    /// current one's media time).
    public struct CaptionSource: Sendable, Hashable {
        public let story: Int
        /// nil for the story's own captions.
        public let item: Int?
        /// The file, as resolved against the storyboard's folder.
        public let file: String

        public init(story: Int, item: Int?, file: String) {
            self.story = story
            self.item = item
            self.file = file
        }

        /// The JSON path of the key, e.g. `stories[0].items[1].captions`.
        public var path: String {
            item.map { "stories[\(story)].items[\($0)].captions" } ?? "stories[\(story)].captions"
        }
    }

    /// Every `captions` key, stories in order, each story's own before its items'.
    public var captionSources: [CaptionSource] {
        stories.enumerated().flatMap { s, story in
            (story.captions.map { [CaptionSource(story: s, item: nil, file: $0)] } ?? [])
                + story.items.enumerated().compactMap { i, item in item.captions.map { CaptionSource(story: s, item: i, file: $0) } }
        }
    }

    /// Every captions file read: the tracks of those that read, and one error per file that
    /// does not, at the key's JSON path. A file that is not there is left out without an error:
    /// `missingLocalFiles` names it, as it names missing media.
    public func loadCaptions() -> (tracks: [CaptionSource: CaptionTrack], problems: [StoryboardError]) {
        var tracks: [CaptionSource: CaptionTrack] = [:]
        var problems: [StoryboardError] = []
        let missing = Set(missingLocalFiles.map(\.file))
        for source in captionSources where !missing.contains(source.file) {
            do {
                tracks[source] = try CaptionTrack(contentsOf: source.file)
            } catch {
                problems.append(StoryboardError(path: source.path, message: "\(source.file): \(error)"))
            }
        }
        return (tracks, problems)
    }

    /// Throws every captions file that cannot be read, together (the CLI exits 2 as for any
    /// storyboard error); missing files are not among them.
    public func checkCaptions() throws(StoryboardError) {
        let problems = StoryboardProblems()
        for problem in loadCaptions().problems { problems.record(problem) }
        try problems.check()
    }
}
