import Foundation
import StoryMedia
import StoryModel
import Synchronization

/// A paged feed: `{"stories": [...], "next": "url-or-null"}` per page, from `file:` or `http(s):`.
/// The next page is fetched on a background thread when the viewer comes within two stories of
/// the end of what it has (LinkedIn's rule); a failed fetch is retried at the next move.
package final class FeedPages: Sendable {
    package struct Page: Sendable {
        var url: URL
        package var stories: [Story]
        var next: URL?
    }

    /// The next page is fetched when no more than this many stories are left after the current one.
    package static let fetchDistance = 2
    /// A page is a list of stories: one larger than this is not a feed page.
    static let largestPage = 16 << 20

    let pageSize: Int
    private let timeout: Double
    private let queue = DispatchQueue(label: "live-stories.feed")
    private let group = DispatchGroup()
    private struct State {
        var result: Result<Page, FeedError>?
        var next: URL?
        var isFetching = false
        var pagesLoaded = 0
        var storiesSoFar = 0
    }
    private let state = Mutex(State())

    /// The next page's URL, nil after the last page.
    package var next: URL? { state.withLock { $0.next } }
    var isFetching: Bool { state.withLock { $0.isFetching } }
    package var pagesLoaded: Int { state.withLock { $0.pagesLoaded } }

    package struct FeedError: Error, CustomStringConvertible, Sendable {
        let url: String
        let message: String
        package var description: String { "feed page \(url): \(message)" }
    }

    /// The feed's first URL: a URL, or a path relative to the storyboard's folder.
    package init(feed: Feed, folder: String, timeout: Double) {
        pageSize = feed.pageSize
        self.timeout = timeout
        let first: URL
        if let url = URL(string: feed.url), let scheme = url.scheme, scheme.count > 1 {
            first = url
        } else {
            first = URL(fileURLWithPath: (folder as NSString).appendingPathComponent(feed.url))
        }
        state.withLock { $0.next = first }
    }

    /// Fetches the first page now.
    package func fetchFirst() throws(FeedError) -> Page {
        guard let url = next else { throw FeedError(url: "?", message: "no page") }
        let page = try fetch(url)
        accept(page)
        return page
    }

    /// Starts fetching the next page unless one is on its way or there is none.
    package func fetchNext() {
        let url: URL? = state.withLock { state in
            guard !state.isFetching, let next = state.next else { return nil }
            state.isFetching = true
            return next
        }
        guard let url else { return }
        queue.async(group: group) { [self] in
            let outcome: Result<Page, FeedError>
            do throws(FeedError) { outcome = .success(try fetch(url)) } catch { outcome = .failure(error) }
            state.withLock { state in
                state.result = outcome
                state.isFetching = false
            }
        }
    }

    /// Waits for a fetch on its way (the virtual clock, so that renders stay deterministic).
    package func waitForFetch() { group.wait() }

    /// A fetch that finished since the last call.
    package func collect() -> Result<Page, FeedError>? {
        let outcome: Result<Page, FeedError>? = state.withLock { state in
            defer { state.result = nil }
            return state.result
        }
        if case .success(let page)? = outcome { accept(page) }
        return outcome
    }

    private func accept(_ page: Page) {
        state.withLock { state in
            state.next = page.next
            state.pagesLoaded += 1
            state.storiesSoFar += page.stories.count
        }
    }

    // MARK: - Fetching one page

    private func fetch(_ url: URL) throws(FeedError) -> Page {
        let data = try download(url)
        let offset = state.withLock { $0.storiesSoFar }
        return try Self.page(data, from: url, firstIndex: offset, pageSize: pageSize)
    }

    private func download(_ url: URL) throws(FeedError) -> Data {
        if url.isFileURL {
            guard let data = FileManager.default.contents(atPath: url.path) else {
                throw FeedError(url: url.absoluteString, message: "cannot read")
            }
            return data
        }
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
            throw FeedError(url: url.absoluteString, message: "only file:, http: and https: pages are supported")
        }
        // On a thread of its own, waited for a second past the timeout at most: FFmpeg cannot
        // interrupt a name lookup (getaddrinfo), and the virtual clock waits for this fetch. A
        // lookup that never ends leaves that thread to finish on its own.
        let outcome = Mutex<Result<Data, MediaError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let (timeout, address) = (self.timeout, url.absoluteString)
        Thread {
            let result = Result { () throws(MediaError) in
                try FeedPageStream.download(address, timeout: timeout, limit: FeedPages.largestPage)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
        guard done.wait(timeout: .now() + timeout + 1) == .success, let result = outcome.withLock({ $0 }) else {
            throw FeedError(url: address, message: "no answer within \(ObjectReader.format(timeout)) s")
        }
        do {
            return try result.get()
        } catch {
            // FFmpeg's reason ("Server returned 404 Not Found"), or how long it waited.
            throw FeedError(url: address, message: error.cause.map { "\($0)" } ?? error.message)
        }
    }
}
