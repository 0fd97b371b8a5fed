import Compositor
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
import StoryBase
import StoryPlayerTestSupport
import XCTest

/// Posters come from the first keyframe alone (`MediaDecoder.firstPicture`), not after the
/// packets a decoder with B-frames holds its first picture back for.
final class PosterDecodingTests: XCTestCase {
    func testFirstPictureIsTheKeyframesAndReadsOnePacket() throws {
        // The sample clips are x264 with B-frames: the decoder delays its first picture.
        let source = MediaSource(uri: Fixture.sample("beach.mp4"), relativeTo: "/")
        let plain = try MediaDecoder(source: source, limits: DecodeLimits())
        defer { plain.close() }
        let expected = try XCTUnwrap(plain.nextPicture())
        XCTAssertGreaterThan(plain.reception.videoPackets, 1, "the clip should delay its first picture")

        let early = try MediaDecoder(source: source, limits: DecodeLimits())
        defer { early.close() }
        let first = try XCTUnwrap(early.firstPicture())
        XCTAssertEqual(early.reception.videoPackets, 1, "one packet, the keyframe")
        XCTAssertEqual(first.time, expected.time)
        XCTAssertEqual(try early.rgba(first, width: 72, height: 128), try plain.rgba(expected, width: 72, height: 128))

        let poster = try PictureLoader.load(source, width: 72, height: 128, limits: DecodeLimits())
        XCTAssertEqual(poster, try plain.rgba(expected, width: 72, height: 128))
    }
}

// MARK: - Loading cards made when first shown

extension PosterDecodingTests {
    /// A loading card is blurred the first time a face shows it, not when its poster loads
    /// (most are never shown, and each shard's preload window would blur them all again). It has
    /// the pixels it had when the preload made it: the poster at a quarter of the canvas, blurred
    /// by the look's radius and darkened. Items that share a poster share one card.
    func testALoadingCardIsTheBlurredPosterMadeOnceWhenFirstShown() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "poster": "\(Fixture.sample("sunset.jpg"))",
                      "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}, {"uri": "\(Fixture.sample("city.mp4"))"}]},
                     {"id": "b", "items": [{"uri": "\(Fixture.sample("city.mp4"))"}]}]}
        """)
        let clock = StageClock()
        let posters = PosterLibrary(canvas: board.canvas, look: board.loading, limits: DecodeLimits(), clock: clock)
        posters.request([0, 1], stories: board.stories)
        posters.waitForRequests()
        XCTAssertGreaterThan(clock.seconds[.overlay] ?? 0, 0, "the avatars are made with the posters")
        let beforeCards = (clock.seconds[.overlay] ?? 0)

        func expectedCard(_ name: String) throws -> RGBAImage {
            let source = MediaSource(uri: Fixture.sample(name), relativeTo: "/")
            let poster = try PictureLoader.load(source, width: 144 / 4, height: 256 / 4, limits: DecodeLimits())
            var card = poster.blurred(radius: Int((board.loading.blur * 144 / 720 / 4).rounded()))
            card.darken(by: PosterLibrary.darkening)
            return card
        }
        let first = try XCTUnwrap(posters.card(story: 0, item: 0))
        XCTAssertGreaterThan((clock.seconds[.overlay] ?? 0), beforeCards, "the card is blurred when first asked for")
        XCTAssertEqual(first, try expectedCard("sunset.jpg"), "the story's poster, blurred and darkened")
        let madeOnce = (clock.seconds[.overlay] ?? 0)
        XCTAssertEqual(posters.card(story: 0, item: 1), first, "the story's items share its poster's card")
        XCTAssertEqual(posters.card(story: 0, item: 0), first)
        XCTAssertEqual((clock.seconds[.overlay] ?? 0), madeOnce, "a card is blurred once, then kept")
        XCTAssertEqual(posters.card(story: 1, item: 0), try expectedCard("city.mp4"), "an item's own first frame")
        XCTAssertEqual(posters.picture(story: 1, item: 0, at: 0, ring: false),
                       try expectedCard("city.mp4").scaled(width: 144, height: 256))
        XCTAssertNil(posters.card(story: 1, item: 5), "no such item")
    }

    /// A shard's fast-forward defers its preloads: nothing is decoded or probed for them, and
    /// the stories' trace events come back from `collect` never (they fall before the shard's
    /// range). A poster a frame then shows is loaded when asked for, with the pixels an eager
    /// load gives; requests after the deferral load as always.
    func testDeferredPreloadsLoadOnlyWhatAFrameShows() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]},
                     {"id": "b", "items": [{"uri": "\(Fixture.sample("city.mp4"))"}]},
                     {"id": "c", "items": [{"uri": "\(Fixture.sample("sunset.jpg"))", "duration": 1}]}]}
        """)
        let eager = PosterLibrary(canvas: board.canvas, look: board.loading, limits: DecodeLimits(), waitsForLoads: true)
        eager.request([0, 1, 2], stories: board.stories)
        eager.waitForRequests()

        let clock = StageClock()
        let posters = PosterLibrary(canvas: board.canvas, look: board.loading, limits: DecodeLimits(), clock: clock, waitsForLoads: true)
        posters.defersLoads(true)
        XCTAssertEqual(posters.request([0, 1], stories: board.stories), [0, 1], "deferred requests are still requests (traced)")
        posters.waitForRequests()
        XCTAssertEqual(clock.seconds[.preload] ?? 0, 0, "nothing was decoded or probed")
        XCTAssertTrue(posters.collect().isEmpty, "nothing loaded, nothing to report")
        posters.defersLoads(false)
        XCTAssertEqual(posters.request([0, 1, 2], stories: board.stories), [2], "a deferred story is not requested again")
        posters.waitForRequests()
        XCTAssertEqual(posters.collect().map(\.story), [2], "only the story requested after the deferral is reported")
        let afterThird = clock.seconds[.preload] ?? 0
        XCTAssertGreaterThan(afterThird, 0)
        XCTAssertEqual(posters.picture(story: 1, item: 0, at: 0, ring: false), eager.picture(story: 1, item: 0, at: 0, ring: false),
                       "a deferred poster shown is loaded then, the same as an eager load")
        XCTAssertGreaterThan(clock.seconds[.preload] ?? 0, afterThird, "story b's poster was decoded when shown")
        let afterB = clock.seconds[.preload] ?? 0
        XCTAssertEqual(posters.card(story: 1, item: 0), eager.card(story: 1, item: 0))
        XCTAssertEqual(posters.card(story: 2, item: 0), eager.card(story: 2, item: 0))
        XCTAssertEqual(clock.seconds[.preload] ?? 0, afterB, "each poster is decoded once")
        XCTAssertTrue(posters.collect().isEmpty, "a deferred story loaded on demand is not reported")
    }

    /// Deferral is the virtual clock's only: a realtime render shows the background for a
    /// poster not loaded yet, so it loads every window as it comes.
    func testARealtimeLibraryDoesNotDefer() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 144, "height": 256, "fps": 10}, "duration": 1,
         "stories": [{"id": "a", "items": [{"uri": "\(Fixture.sample("beach.mp4"))"}]}]}
        """)
        let posters = PosterLibrary(canvas: board.canvas, look: board.loading, limits: DecodeLimits(), waitsForLoads: false)
        posters.defersLoads(true)
        posters.request([0], stories: board.stories)
        posters.waitForRequests()
        XCTAssertEqual(posters.collect().map(\.story), [0])
    }
}
