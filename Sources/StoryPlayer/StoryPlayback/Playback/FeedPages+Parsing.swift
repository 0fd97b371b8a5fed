import Foundation
import StoryModel

// MARK: - Reading one page

extension FeedPages {
    /// Reads one page's JSON, fetched from `url`: its first `pageSize` stories, numbered from
    /// `firstIndex`, and the next page's URL. Pure (no I/O), so the fuzzer can reach it: a page
    /// comes from a server the user does not control.
    static func page(_ data: Data, from url: URL, firstIndex offset: Int, pageSize: Int) throws(FeedError) -> Page {
        do {
            let problems = StoryboardProblems()
            var reader = try ObjectReader(try JSONValue.parse(data), path: "", problems: problems)
            guard let values = reader.array("stories") else { throw reader.missing("stories") }
            var stories: [Story] = []
            for (index, value) in values.prefix(pageSize).enumerated() {
                stories.append(try Storyboard.story(value, path: "stories[\(index)]", index: offset + index, problems: problems) {
                    MediaSource(uri: $0, inFeedPage: url)
                })
            }
            var nextURL: URL?
            if let text = reader.nullableString("next") {
                nextURL = URL(string: text, relativeTo: url)?.absoluteURL
                if url.isFileURL == false, nextURL?.isFileURL == true {
                    throw StoryboardError(path: "next", message: "a page fetched over the network may not point to a local file")
                }
            }
            reader.rejectUnknownKeys()
            // Every error of the page at once, as for a storyboard.
            try problems.check()
            return Page(url: url, stories: stories, next: nextURL)
        } catch {
            throw FeedError(url: url.absoluteString, message: "\(error)")
        }
    }
}
