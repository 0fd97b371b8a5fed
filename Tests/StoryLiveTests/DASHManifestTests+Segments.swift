import Foundation
@testable import StoryLive
@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// The segments a live DASH manifest lists, as this program's own reader (`DASHSegmentFeed`)
/// fetches them: which ones, at which URLs, and where a play starts for a given target.
final class DASHSegmentTests: XCTestCase {
    let base = "http://127.0.0.1:8080/live/live.mpd"

    func testAFFmpegTimelineListsItsNumberedSegments() throws {
        let manifest = try XCTUnwrap(DASHManifest(text: DASHManifestTests.ffmpeg))
        let video = try XCTUnwrap(manifest.video)
        XCTAssertEqual(video.id, "0")
        XCTAssertEqual(manifest.audio?.id, "1")
        XCTAssertEqual(video.template.timeline.map(\.number), [5, 6, 7, 8, 9])
        XCTAssertEqual(video.template.timeline.map(\.time), [61440, 76800, 92160, 107520, 122880])
        XCTAssertEqual(video.url(video.template.initialization!, segment: nil, manifestURL: base),
                       "http://127.0.0.1:8080/live/init-stream0.m4s")
        XCTAssertEqual(video.url(video.template.media!, segment: video.template.timeline[2], manifestURL: base),
                       "http://127.0.0.1:8080/live/chunk-stream0-00007.m4s")

        let window = try XCTUnwrap(DASHLiveWindow(video, manifest: manifest, unixNow: 0))
        XCTAssertEqual(try XCTUnwrap(window.edge), 9, accuracy: 1e-9, "61440 + 5 × 15360 ticks of 1/15360 s")
        // A 1 s target plays the newest segment; 3 s starts three back; more than the window
        // starts at the oldest listed.
        XCTAssertEqual(window.start(behind: 1)?.number, 9)
        XCTAssertEqual(window.start(behind: 3)?.number, 7)
        XCTAssertEqual(window.start(behind: 2.5)?.number, 7, "a segment that starts far enough back")
        XCTAssertEqual(window.start(behind: 60)?.number, 5)
        // The audio segments (1.003 s of AAC each) are timed on their own timescale.
        let audio = try XCTUnwrap(DASHLiveWindow(try XCTUnwrap(manifest.audio), manifest: manifest, unixNow: 0))
        XCTAssertEqual(audio.start(of: audio.segments[0]), 191488 / 48000, accuracy: 1e-9)
    }

    /// dashsink lists no timeline: its segments are counted from how much it has written.
    func testGStreamersNumberedSegmentsAreCountedFromWhatItWrote() throws {
        let manifest = try XCTUnwrap(DASHManifest(text: DASHManifestTests.gstreamer))
        let video = try XCTUnwrap(manifest.video)
        XCTAssertEqual(video.id, "video_0")
        XCTAssertEqual(video.mimeType, "video/mp2t")
        XCTAssertNil(video.template.initialization, "MPEG-TS segments need no initialization segment")
        let window = try XCTUnwrap(DASHLiveWindow(video, manifest: manifest, unixNow: 0))
        XCTAssertEqual(window.segments.map(\.number), Array(1...9), "9.266 s written: nine whole 1 s segments")
        XCTAssertEqual(try XCTUnwrap(window.edge), 9, accuracy: 1e-9)
        XCTAssertEqual(video.url(video.template.media!, segment: window.segments.last, manifestURL: base),
                       "http://127.0.0.1:8080/live/video_0_9.ts")
        XCTAssertEqual(window.start(behind: 3)?.number, 7)
    }

    /// Without `mediaPresentationDuration`, numbered segments come from the manifest's clock.
    func testNumberedSegmentsFollowTheAvailabilityClock() throws {
        let text = """
        <MPD type="dynamic" availabilityStartTime="2026-11-25T10:00:00Z" timeShiftBufferDepth="PT4S">
        <Period start="PT0S"><AdaptationSet mimeType="video/mp4">
        <SegmentTemplate timescale="1000" duration="2000" startNumber="10" initialization="$RepresentationID$/init.mp4" media="$RepresentationID$/$Number%03d$-$Bandwidth$.m4s"/>
        <Representation id="hd" bandwidth="900" width="720" height="1280"/>
        <Representation id="sd" bandwidth="300" width="360" height="640"/>
        </AdaptationSet></Period></MPD>
        """
        let manifest = try XCTUnwrap(DASHManifest(text: text))
        let video = try XCTUnwrap(manifest.video)
        XCTAssertEqual(video.id, "hd", "the highest bandwidth, as FFmpeg's best video stream")
        XCTAssertEqual(video.template.startNumber, 10, "inherited from the adaptation set")
        let start = try XCTUnwrap(DASHManifest.date("2026-11-25T10:00:00Z"))
        let window = try XCTUnwrap(DASHLiveWindow(video, manifest: manifest, unixNow: start + 9.5))
        XCTAssertEqual(window.segments.map(\.number), [12, 13], "four finished by 9.5 s, two within the 4 s depth")
        XCTAssertEqual(video.url(video.template.media!, segment: window.segments[0], manifestURL: base),
                       "http://127.0.0.1:8080/live/hd/012-900.m4s")
        XCTAssertEqual(video.url("$Time$$$x", segment: DASHSegment(number: 1, time: 4000, duration: 2000), manifestURL: base),
                       "http://127.0.0.1:8080/live/4000$x")
        XCTAssertNil(video.url("$Unknown$", segment: nil, manifestURL: base), "an identifier it does not know")
        XCTAssertNil(DASHLiveWindow(video, manifest: manifest, unixNow: start - 5)?.edge, "nothing written before the start")
    }

    /// What a hostile or careless manifest holds never traps or grows without bound.
    func testHostileManifestsStayBounded() throws {
        let video = DASHRepresentation(kind: .video, id: "v", bandwidth: 1, mimeType: "video/mp4")
        XCTAssertNil(video.url("s$%$.m4s", segment: nil, manifestURL: base), "an identifier that is only a width")
        XCTAssertNil(video.url("s$Time$.m4s", segment: DASHSegment(number: 1, time: 1e300, duration: 1), manifestURL: base))
        let many = String(repeating: #"<Representation id="r" width="1"><SegmentTemplate media="$Number$"/><SegmentTimeline><S d="1" r="99999999"/><S d="1" r="99999999"/></SegmentTimeline></Representation>"#, count: 100)
        let manifest = try XCTUnwrap(DASHManifest(text: #"<MPD type="dynamic"><Period><AdaptationSet contentType="video">"# + many + "</AdaptationSet></Period></MPD>"))
        XCTAssertEqual(manifest.representations.count, DASHRepresentation.Template.maxRepresentations)
        XCTAssertEqual(manifest.representations.map(\.template.timeline.count).max(), DASHRepresentation.Template.maxSegments)
        let tiny = try XCTUnwrap(DASHManifest(text: #"<MPD type="dynamic"><Period><AdaptationSet contentType="video"><Representation id="v"><SegmentTemplate timescale="0.000001" media="$Number$"><SegmentTimeline><S d="1"/></SegmentTimeline></SegmentTemplate></Representation></AdaptationSet></Period></MPD>"#))
        XCTAssertEqual(tiny.video?.template.timescale, 1, "a timescale below one tick a second is not taken")
    }

    /// A representation's own template refines its adaptation set's, and keeps its timeline.
    func testARepresentationKeepsItsAdaptationSetsTimeline() throws {
        let manifest = try XCTUnwrap(DASHManifest(text: """
        <MPD type="dynamic"><Period><AdaptationSet contentType="video">
        <SegmentTemplate timescale="10" media="$RepresentationID$-$Time$.m4s"><SegmentTimeline><S t="100" d="10" r="2"/></SegmentTimeline></SegmentTemplate>
        <Representation id="hd" bandwidth="2"><SegmentTemplate initialization="hd-init.mp4"/></Representation>
        </AdaptationSet></Period></MPD>
        """))
        let video = try XCTUnwrap(manifest.video)
        XCTAssertEqual(video.template.timeline.map(\.time), [100, 110, 120])
        XCTAssertEqual(video.template.initialization, "hd-init.mp4")
        XCTAssertEqual(video.url(video.template.media!, segment: video.template.timeline[1], manifestURL: base),
                       "http://127.0.0.1:8080/live/hd-110.m4s")
    }
}
