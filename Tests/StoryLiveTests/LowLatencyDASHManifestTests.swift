import Foundation
@testable import StoryLive
@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// Low-latency DASH manifests as ffmpeg's dash muxer writes them (`-ldash 1 -streaming 1
/// -write_prft 1 -target_latency 1`): chunked segments out before they are whole
/// (`availabilityTimeOffset`), the publisher's latency target and playback rates
/// (`ServiceDescription`), and its clock (`UTCTiming`).
final class LowLatencyDASHManifestTests: XCTestCase {
    /// What ffmpeg 5.1 wrote here, 3.5 s into a publish (namespaces and the audio set trimmed).
    static let ffmpeg = """
        <?xml version="1.0" encoding="utf-8"?>
        <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011"
        	type="dynamic"
        	minimumUpdatePeriod="PT500S"
        	availabilityStartTime="2026-12-03T06:49:18.098Z"
        	publishTime="2026-12-03T06:49:21.091Z"
        	timeShiftBufferDepth="PT5.0S"
        	maxSegmentDuration="PT1.0S"
        	minBufferTime="PT1.0S">
        	<ProgramInformation>
        	</ProgramInformation>
        	<ServiceDescription id="0">
        		<Latency target="1000" referenceId="1"/>
        		<PlaybackRate min="0.96" max="1.04"/>
        	</ServiceDescription>
        	<Period id="0" start="PT0.0S">
        		<AdaptationSet id="0" contentType="video" startWithSAP="1" segmentAlignment="true" bitstreamSwitching="true" frameRate="30/1" maxWidth="360" maxHeight="640" par="9:16">
        			<Resync dT="100000" type="0"/>
        			<Representation id="0" mimeType="video/mp4" codecs="avc1.64001e" bandwidth="1257440" width="360" height="640" sar="1:1">
        				<ProducerReferenceTime id="0" inband="true" type="captured" wallClockTime="2026-12-03T06:49:18.099Z" presentationTime="0">
        					<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="http://127.0.0.1:9/time"/>
        				</ProducerReferenceTime>
        				<Resync dT="1000000" type="1"/>
        				<SegmentTemplate timescale="1000000" duration="1000000" availabilityTimeOffset="0.900" availabilityTimeComplete="false" initialization="init-stream$RepresentationID$.m4s" media="chunk-stream$RepresentationID$-$Number%05d$.m4s" startNumber="1">
        				</SegmentTemplate>
        			</Representation>
        		</AdaptationSet>
        	</Period>
        	<UTCTiming schemeIdUri="urn:mpeg:dash:utc:http-xsdate:2014" value="http://127.0.0.1:9/time"/>
        </MPD>
        """

    func testTheServiceDescriptionAndClockAreRead() throws {
        let manifest = try XCTUnwrap(DASHManifest(text: Self.ffmpeg))
        XCTAssertEqual(manifest.latencyTarget, 1.0)
        XCTAssertEqual(manifest.suggestedTarget, 1.0, "the latency target over the absent suggestedPresentationDelay")
        XCTAssertEqual(manifest.playbackRates, 0.96...1.04)
        XCTAssertEqual(manifest.utcTiming?.scheme, "urn:mpeg:dash:utc:http-xsdate:2014")
        XCTAssertEqual(manifest.utcTiming?.value, "http://127.0.0.1:9/time")
        XCTAssertEqual(manifest.video?.template.availabilityTimeOffset, 0.9)
    }

    /// 3.45 s after the availability start: segments 1-3 are whole, and segment 4 has been out
    /// since 3.1 s (0.9 s before its end), read while it is written. The edge is where the
    /// publisher is (3.45 s), not the end of the newest segment (4 s) nor of the last whole one (3 s).
    func testASegmentIsOutOnceItsFirstChunkIs() throws {
        let manifest = try XCTUnwrap(DASHManifest(text: Self.ffmpeg))
        let video = try XCTUnwrap(manifest.video)
        let start = try XCTUnwrap(manifest.availabilityStartTime)
        let window = try XCTUnwrap(DASHLiveWindow(video, manifest: manifest, unixNow: start + 3.45))
        XCTAssertEqual(window.segments.map(\.number), [1, 2, 3, 4])
        XCTAssertEqual(try XCTUnwrap(window.edge), 3.45, accuracy: 1e-6)
        // A 1 s target starts at the segment that holds 2.45 s: segment 3, which starts at 2 s.
        XCTAssertEqual(window.start(behind: 1)?.number, 3)
        // 0.05 s into segment 4 no chunk of it is out yet.
        let before = try XCTUnwrap(DASHLiveWindow(video, manifest: manifest, unixNow: start + 3.05))
        XCTAssertEqual(before.segments.last?.number, 3)
        // Without the offset, a segment is out only when it is whole (dashsink, ffmpeg's default).
        var whole = manifest
        whole.representations[0].template.availabilityTimeOffset = 0
        let plain = try XCTUnwrap(DASHLiveWindow(try XCTUnwrap(whole.video), manifest: whole, unixNow: start + 3.45))
        XCTAssertEqual(plain.segments.last?.number, 3)
        XCTAssertEqual(try XCTUnwrap(plain.edge), 3, accuracy: 1e-6)
    }

    /// A manifest's numbers may be anything: an offset that is not a finite number, or a rate
    /// range that would stop or reverse the clock, is not taken.
    func testNonsenseIsNotTaken() throws {
        let odd = Self.ffmpeg.replacingOccurrences(of: "availabilityTimeOffset=\"0.900\"", with: "availabilityTimeOffset=\"nan\"")
            .replacingOccurrences(of: "min=\"0.96\"", with: "min=\"-1\"")
            .replacingOccurrences(of: "target=\"1000\"", with: "target=\"1e300\"")
        let manifest = try XCTUnwrap(DASHManifest(text: odd))
        XCTAssertEqual(manifest.video?.template.availabilityTimeOffset, 0)
        XCTAssertNil(manifest.playbackRates)
        XCTAssertNil(manifest.latencyTarget)
    }
}
