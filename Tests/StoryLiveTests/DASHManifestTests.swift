import Foundation
@testable import StoryLive
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// Live DASH manifests as ffmpeg's dash muxer and GStreamer's dashsink write them, and the edge
/// the player measures against from them.
final class DASHManifestTests: XCTestCase {
    /// ffmpeg 5.1, `-f dash -seg_duration 1 -window_size 5 -use_template 1 -use_timeline 1`.
    static let ffmpeg = """
    <?xml version="1.0" encoding="utf-8"?>
    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011"
    \ttype="dynamic"
    \tminimumUpdatePeriod="PT1S"
    \tsuggestedPresentationDelay="PT1S"
    \tavailabilityStartTime="2026-11-25T14:44:31.171Z"
    \tpublishTime="2026-11-25T14:44:40.141Z"
    \ttimeShiftBufferDepth="PT5.0S">
    \t<Period id="0" start="PT0.0S">
    \t\t<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" frameRate="30/1">
    \t\t\t<Representation id="0" mimeType="video/mp4" codecs="avc1.64001e" bandwidth="62456" width="360" height="640" sar="1:1">
    \t\t\t\t<SegmentTemplate timescale="15360" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="5">
    \t\t\t\t\t<SegmentTimeline>
    \t\t\t\t\t\t<S t="61440" d="15360" r="4" />
    \t\t\t\t\t</SegmentTimeline>
    \t\t\t\t</SegmentTemplate>
    \t\t\t</Representation>
    \t\t</AdaptationSet>
    \t\t<AdaptationSet id="1" contentType="audio" startWithSAP="1" segmentAlignment="true">
    \t\t\t<Representation id="1" mimeType="audio/mp4" codecs="mp4a.40.2" bandwidth="69000" audioSamplingRate="48000">
    \t\t\t\t<SegmentTemplate timescale="48000" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="5">
    \t\t\t\t\t<SegmentTimeline>
    \t\t\t\t\t\t<S t="191488" d="48128" r="4" />
    \t\t\t\t\t</SegmentTimeline>
    \t\t\t\t</SegmentTemplate>
    \t\t\t</Representation>
    \t\t</AdaptationSet>
    \t</Period>
    </MPD>
    """

    /// GStreamer 1.22 dashsink, `dynamic=true target-duration=1 muxer=ts`: numbers, no timeline.
    static let gstreamer = """
    <?xml version="1.0"?>
    <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-main:2011" type="dynamic" availabilityStartTime="2026-11-25T14:44:32Z" publishTime="2026-11-25T14:44:32Z" mediaPresentationDuration="P0Y0M0DT0H0M9.266S" minBufferTime="P0Y0M0DT0H0M2.0S"><Period id="period_00" bitstreamSwitching="false"><AdaptationSet id="1" contentType="video" subsegmentStartsWithSAP="0" bitstreamSwitching="false"><Representation id="video_0" bandwidth="26010" width="360" height="640" mimeType="video/mp2t" codecs="avc1"><SegmentTemplate media="video_0_$Number$.ts" duration="1"/></Representation></AdaptationSet><AdaptationSet id="2" contentType="audio"><Representation id="audio_0" bandwidth="8699" audioSamplingRate="44100" mimeType="video/mp2t" codecs="mp4a"><SegmentTemplate media="audio_0_$Number$.ts" duration="1"/></Representation></AdaptationSet></Period></MPD>
    """

    func testManifestsOfFFmpegAndGStreamer() throws {
        let ffmpeg = try XCTUnwrap(DASHManifest(text: DASHManifestTests.ffmpeg))
        XCTAssertTrue(ffmpeg.isDynamic)
        XCTAssertEqual(ffmpeg.presentationDelay, 1)
        XCTAssertEqual(try XCTUnwrap(ffmpeg.publishTime), 1_795_617_880.141, accuracy: 0.001)
        // The video timeline, not the audio one: 61440 + 5 × 15360 ticks of 1/15360 s.
        XCTAssertEqual(try XCTUnwrap(ffmpeg.lastSegmentEnd), 9, accuracy: 1e-9)

        let gstreamer = try XCTUnwrap(DASHManifest(text: DASHManifestTests.gstreamer))
        XCTAssertTrue(gstreamer.isDynamic)
        XCTAssertNil(gstreamer.presentationDelay, "no suggestion: the player's default of 3 s holds")
        XCTAssertNil(gstreamer.lastSegmentEnd, "numbered segments without a timeline say nothing of their media times")

        XCTAssertNil(DASHManifest(text: "#EXTM3U\n"), "not a manifest")
        XCTAssertEqual(DASHManifest.seconds(iso8601: "P0Y0M0DT0H1M2.5S"), 62.5)
        XCTAssertEqual(DASHManifest.seconds(iso8601: "PT0.5S"), 0.5)
        XCTAssertNil(DASHManifest.seconds(iso8601: "soon"))
    }

    func testTimelinesWithoutStartsAndWithRepeats() throws {
        let text = """
        <MPD type="static"><Period><AdaptationSet mimeType="video/mp4"><SegmentTemplate timescale="1000">
        <SegmentTimeline><S t="1000" d="2000" r="1"/><S d="500"/></SegmentTimeline></SegmentTemplate></AdaptationSet></Period></MPD>
        """
        let manifest = try XCTUnwrap(DASHManifest(text: text))
        XCTAssertFalse(manifest.isDynamic, "a static manifest: its item ends with its last segment")
        XCTAssertEqual(try XCTUnwrap(manifest.lastSegmentEnd), 5.5, accuracy: 1e-9, "1 s + 2 × 2 s, then 0.5 s from where they ended")
    }

    /// The edge from a manifest: its newest segment's end, mapped onto the pictures' time line by
    /// the timestamps they carry, advancing with the clock from when it was listed. Before, a
    /// DASH stream's offset came from the pictures' arrival, which FFmpeg's demuxer paces by its
    /// own fetches from the oldest segment listed: about 0.2 s measured where pictures were 4-5 s old.
    func testTheManifestSetsTheEdgeNotThePicturesArrival() throws {
        let edge = LiveEdge()
        // The first picture (media time 4 s as written; 0 on the line) arrives at once, at 100 s.
        edge.pictureArrived(time: 0, written: 4, epoch: 0, now: 100)
        XCTAssertEqual(try XCTUnwrap(edge.offset(of: 0, epoch: 0, now: 100)).seconds, 0, accuracy: 1e-9, "from arrival alone")
        // The manifest, read at 100 s, lists segments up to media time 9 s.
        edge.manifestSeen(lead: 9 - 100)
        let offset = try XCTUnwrap(edge.offset(of: 0, epoch: 0, now: 100))
        XCTAssertEqual(offset.seconds, 5, accuracy: 1e-9, "the picture is 5 s behind the newest segment's end")
        XCTAssertEqual(offset.from, .arrival)
        XCTAssertEqual(try XCTUnwrap(edge.offset(of: 1, epoch: 0, now: 101.5)).seconds, 5.5, accuracy: 1e-9, "the edge moves on with the clock")
        // The timestamps jump back (the demuxer went back to an older segment): a new time line,
        // measured against the same manifest through its own first picture.
        let next = edge.newEpoch()
        edge.pictureArrived(time: 20, written: 5, epoch: next, now: 102)
        XCTAssertEqual(try XCTUnwrap(edge.offset(of: 20, epoch: next, now: 102)).seconds, 6, accuracy: 1e-9,
                       "media time 5 s against an edge at 9 s + 2 s")
    }

    /// A manifest's `suggestedPresentationDelay` is the default target, but a storyboard's wins.
    func testTheSuggestedDelayIsTheDefaultTarget() {
        var playhead = LivePlayhead(latency: LiveLatency().resolved(kind: .dash), controlsSpeed: true)
        XCTAssertEqual(playhead.target, 3, "before the manifest is read")
        playhead.rebuffered()
        playhead.retarget(1)
        XCTAssertEqual(playhead.target, 1.5, "the suggestion, plus what a rebuffer added")
        XCTAssertEqual(playhead.maxOffset, 4.5)

        XCTAssertTrue(ItemPlayer.livePlayback(for: liveItem(nil), limits: DecodeLimits(), waits: false)?.takesSuggestedTarget ?? false)
        XCTAssertFalse(ItemPlayer.livePlayback(for: liveItem(2), limits: DecodeLimits(), waits: false)?.takesSuggestedTarget ?? true,
                       "a target the storyboard gave is kept")
    }

    private func liveItem(_ target: Double?) -> StoryItem {
        let latency = target.map { #", "latency": {"target": \#($0)}"# } ?? ""
        let board = try! Storyboard.parse("""
        {"stories": [{"items": [{"uri": "http://127.0.0.1:9/live.mpd", "duration": 1\(latency)}]}]}
        """)
        return board.stories[0].items[0]
    }
}
