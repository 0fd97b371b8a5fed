import Foundation

extension Storyboard {
    /// A local file the storyboard names that is not there.
    public struct MissingFile: Sendable, Equatable, CustomStringConvertible {
        /// The JSON path of the key that names it, e.g. `stories[1].items[0].uri`.
        public let path: String
        /// The file as resolved against the storyboard's folder.
        public let file: String

        public var description: String { "\(path): no such file \(file)" }
    }

    /// Every local file the storyboard names (items, posters, captions, room participants and avatars)
    /// that does not exist, so a typo is named before a render, not found at its end.
    public var missingLocalFiles: [MissingFile] {
        var missing: [MissingFile] = []
        func check(_ source: MediaSource?, _ path: String) {
            guard let source, !source.isRemote, source.refusal == nil,
                  !FileManager.default.fileExists(atPath: source.location) else { return }
            missing.append(MissingFile(path: path, file: source.location))
        }
        func checkFile(_ file: String?, _ path: String) {
            guard let file, !FileManager.default.fileExists(atPath: file) else { return }
            missing.append(MissingFile(path: path, file: file))
        }
        for (s, story) in stories.enumerated() {
            check(story.poster, "stories[\(s)].poster")
            checkFile(story.captions, "stories[\(s)].captions")
            for (i, item) in story.items.enumerated() {
                if let room = item.room {
                    for (p, participant) in room.participants.enumerated() {
                        check(participant.source, "stories[\(s)].room.participants[\(p)].uri")
                        check(participant.avatar, "stories[\(s)].room.participants[\(p)].avatar")
                    }
                } else {
                    check(item.source, "stories[\(s)].items[\(i)].uri")
                    check(item.poster, "stories[\(s)].items[\(i)].poster")
                    checkFile(item.captions, "stories[\(s)].items[\(i)].captions")
                }
            }
        }
        return missing
    }
}
