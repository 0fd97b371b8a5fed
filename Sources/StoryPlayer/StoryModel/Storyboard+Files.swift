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
        visitNamedFiles { source, path in
            guard let source, !source.isRemote, source.refusal == nil,
                  !FileManager.default.fileExists(atPath: source.location) else { return }
            missing.append(MissingFile(path: path, file: source.location))
        } captions: { file, path in
            guard let file, !FileManager.default.fileExists(atPath: file) else { return }
            missing.append(MissingFile(path: path, file: file))
        }
        return missing
    }

    /// Every file the storyboard names, in its order, with the JSON path of the key that names
    /// it: media (story and item posters, items, room participants and avatars) to `media`,
    /// captions files to `captions`. nil where a key is absent.
    func visitNamedFiles(media: (MediaSource?, String) -> Void, captions: (String?, String) -> Void = { _, _ in }) {
        for (s, story) in stories.enumerated() {
            media(story.poster, "stories[\(s)].poster")
            captions(story.captions, "stories[\(s)].captions")
            for (i, item) in story.items.enumerated() {
                if let room = item.room {
                    for (p, participant) in room.participants.enumerated() {
                        media(participant.source, "stories[\(s)].room.participants[\(p)].uri")
                        media(participant.avatar, "stories[\(s)].room.participants[\(p)].avatar")
                    }
                } else {
                    media(item.source, "stories[\(s)].items[\(i)].uri")
                    media(item.poster, "stories[\(s)].items[\(i)].poster")
                    captions(item.captions, "stories[\(s)].items[\(i)].captions")
                }
            }
        }
    }
}
