import Foundation
import Synchronization
@testable import StoryLive
@testable import StoryMedia
@testable import StoryModel
import StoryPlayerTestSupport
import XCTest

/// Reading a live HLS playlist again to learn whether it has ended, the same way for a local
/// playlist (from disk) as for one on a server.
final class PlaylistWatchTests: XCTestCase {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// A local master playlist in a folder whose name has a space: its variant is found beside
    /// it, and its `#EXT-X-ENDLIST` read, before and after the publisher writes it.
    func testALocalPlaylistSaysWhetherItHasEndedThroughItsVariant() throws {
        let folder = ScratchFolder()
        let dir = folder.file("live stream")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try write("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=800000\nlow.m3u8\n#EXT-X-STREAM-INF:BANDWIDTH=2000000\nhigh.m3u8\n",
                  to: dir + "/master.m3u8")
        let live = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:4\n#EXTINF:1.0,\ns4.ts\n#EXTINF:1.0,\ns5.ts\n"
        try write(live, to: dir + "/low.m3u8")
        try write(live, to: dir + "/high.m3u8")
        let source = MediaSource(uri: dir + "/master.m3u8", relativeTo: "/")
        XCTAssertFalse(source.isRemote)
        XCTAssertFalse(PlaylistWatch.saysEnded(source, gate: InterruptGate(), timeout: 1), "still live")

        try write(live + "#EXT-X-ENDLIST\n", to: dir + "/low.m3u8")
        XCTAssertFalse(PlaylistWatch.saysEnded(source, gate: InterruptGate(), timeout: 1),
                       "the variant of the highest bandwidth is the one played, and it has not ended")
        try write(live + "#EXT-X-ENDLIST\n", to: dir + "/high.m3u8")
        XCTAssertTrue(PlaylistWatch.saysEnded(source, gate: InterruptGate(), timeout: 1))

        let media = try XCTUnwrap(PlaylistWatch.fetchMedia(source.ffmpegURL, gate: InterruptGate(), timeout: 1))
        XCTAssertEqual(media.url, "file:" + dir + "/high.m3u8")
        XCTAssertEqual(media.playlist.segments.count, 2)
    }

    func testAPlaylistThatCannotBeReadHasNotSaidItEnded() {
        let source = MediaSource(uri: "/nonexistent/live.m3u8", relativeTo: "/")
        XCTAssertFalse(PlaylistWatch.saysEnded(source, gate: InterruptGate(), timeout: 1))
    }

    func testNamesInALocalPlaylistResolveBesideIt() {
        XCTAssertEqual(PlaylistWatch.resolve("v/a.m3u8", against: "file:/srv/my show/master.m3u8"), "file:/srv/my show/v/a.m3u8")
        XCTAssertEqual(PlaylistWatch.resolve("/other/a.m3u8", against: "file:/srv/master.m3u8"), "file:/other/a.m3u8")
        XCTAssertEqual(PlaylistWatch.resolve("http://cdn.test/a.m3u8", against: "file:/srv/master.m3u8"), "http://cdn.test/a.m3u8")
        XCTAssertEqual(PlaylistWatch.resolve("a.m3u8", against: "http://127.0.0.1:8080/live/master.m3u8"),
                       "http://127.0.0.1:8080/live/a.m3u8")
        XCTAssertNil(PlaylistWatch.resolve("file:/etc/passwd", against: "http://127.0.0.1:8080/live/master.m3u8"),
                     "a playlist from the network never names a local file")
        XCTAssertNil(PlaylistWatch.resolve("file:///etc/passwd", against: "https://cdn.test/master.m3u8"))
        XCTAssertEqual(PlaylistWatch.localPath("file:///srv/a.m3u8"), "/srv/a.m3u8")
        XCTAssertNil(PlaylistWatch.localPath("https://cdn.test/a.m3u8"))
    }

    /// `file://localhost/x` is this machine's `/x` (as curl and browsers write it), not a path
    /// `localhost/x` beside the working folder; a `file:` URL naming another host is no path
    /// here, and a network playlist may name none of them.
    func testAFileURLWithAHostIsLocalOnlyForThisMachine() {
        XCTAssertEqual(PlaylistWatch.localPath("file://localhost/srv/a.m3u8"), "/srv/a.m3u8")
        XCTAssertEqual(PlaylistWatch.localPath("FILE://LocalHost/srv/a.m3u8"), "/srv/a.m3u8")
        XCTAssertEqual(PlaylistWatch.localPath("file:/srv/a.m3u8"), "/srv/a.m3u8")
        XCTAssertNil(PlaylistWatch.localPath("file://cdn.test/srv/a.m3u8"))
        XCTAssertNil(PlaylistWatch.resolve("file://cdn.test/etc/passwd", against: "http://127.0.0.1:8080/live/master.m3u8"))
        XCTAssertNil(PlaylistWatch.resolve("FILE:///etc/passwd", against: "http://127.0.0.1:8080/live/master.m3u8"))
        XCTAssertEqual(PlaylistWatch.resolve("FILE:/srv/b.m3u8", against: "file:/srv/master.m3u8"), "FILE:/srv/b.m3u8",
                       "a local playlist's FILE: URL is a URL, not a name beside it")
    }

    /// A local "playlist" is read no further than its first 1 MB, as a remote one is, so a path
    /// to something endless (here `/dev/zero`) gives its first megabyte in bounded time. The
    /// whole-file read it replaced gave nil for `/dev/zero`, and read a large file whole.
    func testALocalPlaylistIsReadNoFurtherThanItsFirstMegabyte() {
        let read = DispatchSemaphore(value: 0)
        let count = Mutex<Int?>(nil)
        Thread.detachNewThread {
            let text = PlaylistWatch.fetchText("file:/dev/zero", gate: InterruptGate(), timeout: 1)
            count.withLock { $0 = text?.utf8.count }
            read.signal()
        }
        XCTAssertEqual(read.wait(timeout: .now() + 5), .success, "reading /dev/zero as a playlist ended")
        XCTAssertEqual(count.withLock { $0 }, 1 << 20)
    }
}
