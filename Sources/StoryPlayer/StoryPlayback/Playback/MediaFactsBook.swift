import StoryModel
import Synchronization

/// What a shard's fast-forward learned of each recorded source it opened for its length alone
/// (`ItemPlayer`'s deferred players), kept for the render: a storyboard that plays the same clip
/// in several items (or a viewer that comes back to a story) opens it once, not once a play.
/// A file's facts do not change during a render; live sources are never kept (their facts are
/// the connection's), and a source that failed to open is tried again, as a whole render would.
package final class MediaFactsBook: Sendable {
    private let facts = Mutex<[String: MediaFacts]>([:])

    package init() {}

    func facts(of source: MediaSource) -> MediaFacts? {
        facts.withLock { $0[source.identity] }
    }

    func keep(_ media: MediaFacts, of source: MediaSource) {
        facts.withLock { $0[source.identity] = media }
    }
}
