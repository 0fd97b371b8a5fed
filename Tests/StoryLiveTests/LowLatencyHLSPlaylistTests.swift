import Foundation
@testable import StoryLive
@testable import StoryMedia
import StoryPlayerTestSupport
import XCTest

/// Low-Latency HLS playlists (RFC 8216bis) as the part reader (`HLSPartFeed`) and the edge's
/// ledger read them: parts, preload hints, server control, delta updates.
final class LowLatencyHLSPlaylistTests: XCTestCase {
    // MARK: - The RFC's own examples

    /// Shaped as RFC 8216bis's example of a Low-Latency playlist (its appendix): 4 s segments of
    /// twelve 0.33334 s parts, the parts of the last complete segments still listed, three parts
    /// of the segment being written, a preload hint, and rendition reports.
    static let rfcExample = """
        #EXTM3U
        # This Playlist is a response to: GET https://example.com/2M/waitForMSN.php?_HLS_msn=273&_HLS_part=2
        #EXT-X-TARGETDURATION:4
        #EXT-X-VERSION:6
        #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=12.0
        #EXT-X-PART-INF:PART-TARGET=0.33334
        #EXT-X-MEDIA-SEQUENCE:266
        #EXT-X-PROGRAM-DATE-TIME:2019-02-14T02:13:36.106Z
        #EXT-X-MAP:URI="init.mp4"
        #EXTINF:4.00008,
        fileSequence266.mp4
        #EXTINF:4.00008,
        fileSequence267.mp4
        #EXTINF:4.00008,
        fileSequence268.mp4
        #EXTINF:4.00008,
        fileSequence269.mp4
        #EXTINF:4.00008,
        fileSequence270.mp4
        \((0..<12).map { "#EXT-X-PART:DURATION=0.33334,URI=\"filePart271.\($0).mp4\"\($0 == 0 ? ",INDEPENDENT=YES" : "")" }.joined(separator: "\n"))
        #EXTINF:4.00008,
        fileSequence271.mp4
        \((0..<12).map { "#EXT-X-PART:DURATION=0.33334,URI=\"filePart272.\($0).mp4\"\($0 % 4 == 0 ? ",INDEPENDENT=YES" : "")" }.joined(separator: "\n"))
        #EXTINF:4.00008,
        fileSequence272.mp4
        #EXT-X-PART:DURATION=0.33334,URI="filePart273.0.mp4",INDEPENDENT=YES
        #EXT-X-PART:DURATION=0.33334,URI="filePart273.1.mp4"
        #EXT-X-PART:DURATION=0.33334,URI="filePart273.2.mp4"
        #EXT-X-PRELOAD-HINT:TYPE=PART,URI="filePart273.3.mp4"

        #EXT-X-RENDITION-REPORT:URI="../1M/waitForMSN.php",LAST-MSN=273,LAST-PART=2
        #EXT-X-RENDITION-REPORT:URI="../4M/waitForMSN.php",LAST-MSN=273,LAST-PART=1

        """

    func testTheRFCExampleIsReadPartByPart() throws {
        let playlist = try XCTUnwrap(HLSPlaylist(text: Self.rfcExample))
        XCTAssertTrue(playlist.isLowLatency)
        XCTAssertEqual(playlist.serverControl.canBlockReload, true)
        XCTAssertEqual(playlist.serverControl.partHoldBack, 1.0)
        XCTAssertEqual(playlist.serverControl.canSkipUntil, 12.0)
        XCTAssertEqual(playlist.partTarget, 0.33334)
        XCTAssertEqual(playlist.mapURI, "init.mp4")
        XCTAssertEqual(playlist.segments.map(\.sequence), Array(266...272))
        XCTAssertEqual(playlist.segments.map(\.parts.count), [0, 0, 0, 0, 0, 12, 12])
        XCTAssertEqual(playlist.segments[5].parts.first, HLSPlaylist.Part(duration: 0.33334, uri: "filePart271.0.mp4", independent: true))
        XCTAssertEqual(playlist.trailingParts.map(\.uri), ["filePart273.0.mp4", "filePart273.1.mp4", "filePart273.2.mp4"])
        XCTAssertEqual(playlist.nextSequence, 273)
        XCTAssertEqual(playlist.preloadHint, "filePart273.3.mp4")
        // The hint is the place after the newest part.
        XCTAssertEqual(playlist.nextPosition, HLSPlaylist.PartPosition(sequence: 273, part: 3))
        // PART-HOLD-BACK is the default target: three part targets at least.
        XCTAssertEqual(try XCTUnwrap(playlist.lowLatencyTarget), 1.00002, accuracy: 1e-9)
        // Whole segments where their parts are gone, then parts: 5 + 12 + 12 + 3 pieces.
        let pieces = playlist.pieces
        XCTAssertEqual(pieces.count, 32)
        XCTAssertTrue(pieces[4].isWholeSegment)
        XCTAssertEqual(pieces[4].uri, "fileSequence270.mp4")
        XCTAssertEqual(pieces.last?.position, HLSPlaylist.PartPosition(sequence: 273, part: 2))
    }

    /// The start is the newest independent part at least the target from the end: 1 s back from
    /// the end of part 273.2 is part 273.0 (exactly 1.00002 s); 1.5 s back lands on 272.8, the
    /// newest independent part before that, 0.33334 × 8 s into its segment.
    func testAPlayStartsAtTheIndependentPartNearestTheTarget() throws {
        let playlist = try XCTUnwrap(HLSPlaylist(text: Self.rfcExample))
        let atHoldBack = try XCTUnwrap(playlist.start(behind: 1.0))
        XCTAssertEqual(atHoldBack.piece.position, HLSPlaylist.PartPosition(sequence: 273, part: 0))
        XCTAssertEqual(atHoldBack.offsetInSegment, 0)
        let further = try XCTUnwrap(playlist.start(behind: 1.5))
        XCTAssertEqual(further.piece.position, HLSPlaylist.PartPosition(sequence: 272, part: 8))
        XCTAssertEqual(further.offsetInSegment, 8 * 0.33334, accuracy: 1e-9)
        // Further back than every part: the oldest independent piece, a whole segment.
        let oldest = try XCTUnwrap(playlist.start(behind: 1000))
        XCTAssertEqual(oldest.piece.position, HLSPlaylist.PartPosition(sequence: 266, part: 0))
        XCTAssertTrue(oldest.piece.isWholeSegment)
    }

    /// A delta update (the RFC's `_HLS_skip=YES` example): the skipped segments are counted into
    /// the first listed one's number, and filled from the full playlist read before.
    func testADeltaUpdateCountsAndFillsTheSegmentsItSkips() throws {
        let full = try XCTUnwrap(HLSPlaylist(text: Self.rfcExample))
        let delta = try XCTUnwrap(HLSPlaylist(text: """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-VERSION:9
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1.0,CAN-SKIP-UNTIL=12.0
            #EXT-X-PART-INF:PART-TARGET=0.33334
            #EXT-X-MEDIA-SEQUENCE:266
            #EXT-X-SKIP:SKIPPED-SEGMENTS=3
            #EXTINF:4.00008,
            fileSequence269.mp4
            #EXTINF:4.00008,
            fileSequence270.mp4
            #EXT-X-PART:DURATION=0.33334,URI="filePart271.0.mp4",INDEPENDENT=YES
            #EXTINF:4.00008,
            fileSequence271.mp4
            #EXT-X-PART:DURATION=0.33334,URI="filePart272.0.mp4",INDEPENDENT=YES
            #EXTINF:4.00008,
            fileSequence272.mp4
            #EXT-X-PART:DURATION=0.33334,URI="filePart273.0.mp4",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.33334,URI="filePart273.1.mp4"
            #EXT-X-PART:DURATION=0.33334,URI="filePart273.2.mp4"
            #EXT-X-PART:DURATION=0.33334,URI="filePart273.3.mp4"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="filePart273.4.mp4"
            """))
        XCTAssertEqual(delta.skippedSegments, 3)
        XCTAssertEqual(delta.segments.map(\.sequence), Array(269...272))
        XCTAssertEqual(delta.nextPosition, HLSPlaylist.PartPosition(sequence: 273, part: 4))
        let filled = try XCTUnwrap(delta.filling(skippedFrom: full))
        XCTAssertEqual(filled.segments.map(\.sequence), Array(266...272))
        XCTAssertEqual(filled.segments.first?.uri, "fileSequence266.mp4")
        XCTAssertEqual(filled.mapURI, "init.mp4", "the initialization section, from the full playlist")
        XCTAssertEqual(filled.skippedSegments, 0)
        // A playlist read before that no longer holds the skipped segments cannot fill them: the
        // reader then reads the playlist whole.
        let late = try XCTUnwrap(HLSPlaylist(text: "#EXTM3U\n#EXT-X-TARGETDURATION:4\n#EXT-X-MEDIA-SEQUENCE:268\n#EXTINF:4,\ns268.mp4\n"))
        XCTAssertNil(delta.filling(skippedFrom: late))
    }

    /// A hostile playlist: numbers repeated or past any real one, a part target that is no
    /// number, byte-range parts, gaps. Nothing traps, and what cannot be read is not taken.
    func testAHostilePlaylistIsBoundedAndFallsBack() throws {
        let huge = String(repeating: "#EXT-X-SKIP:SKIPPED-SEGMENTS=9007199254740992\n", count: 1100)
        let skipped = try XCTUnwrap(HLSPlaylist(text: "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n" + huge + "#EXTINF:1,\ns.ts\n"))
        XCTAssertLessThanOrEqual(skipped.segments[0].sequence, 2 * HLSPlaylist.largestSequence)
        let nonsense = try XCTUnwrap(HLSPlaylist(text: """
            #EXTM3U
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=1e300
            #EXT-X-PART-INF:PART-TARGET=nan
            #EXT-X-PART:DURATION=0.3,URI="p0.mp4",INDEPENDENT=YES
            """))
        XCTAssertNil(nonsense.partTarget)
        XCTAssertNil(nonsense.serverControl.partHoldBack)
        XCTAssertFalse(nonsense.isLowLatency, "no part target: played as plain HLS")
        let ranged = try XCTUnwrap(HLSPlaylist(text: """
            #EXTM3U
            #EXT-X-PART-INF:PART-TARGET=0.5
            #EXT-X-PART:DURATION=0.5,URI="all.mp4",BYTERANGE="1000@0",INDEPENDENT=YES
            """))
        XCTAssertFalse(ranged.isLowLatency, "byte-range parts are FFmpeg's demuxer's to play")
        let gapped = try XCTUnwrap(HLSPlaylist(text: """
            #EXTM3U
            #EXT-X-PART-INF:PART-TARGET=0.5
            #EXT-X-PART:DURATION=0.5,URI="a.mp4",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.5,URI="b.mp4",INDEPENDENT=YES,GAP=YES
            """))
        XCTAssertEqual(gapped.pieces.map(\.gap), [false, true])
        XCTAssertEqual(gapped.start(behind: 0)?.piece.uri, "a.mp4", "a play never starts at a gap")
        let withSound = try XCTUnwrap(HLSPlaylist(text: """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="en",URI="audio.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=800000,AUDIO="a"
            video.m3u8
            """))
        XCTAssertTrue(withSound.hasAlternateAudio, "a separate audio rendition: FFmpeg's demuxer plays it")
    }

    /// The reloads a player sends: held for a part (`_HLS_msn`, `_HLS_part`), with a delta update
    /// where the server offers one, after any query the playlist's URL has.
    func testReloadsAskForThePartAndADeltaUpdate() throws {
        let playlist = try XCTUnwrap(HLSPlaylist(text: Self.rfcExample))
        let next = playlist.nextPosition
        XCTAssertEqual(playlist.reloadURL("https://example.com/2M/live.m3u8", waitingFor: next, skip: true),
                       "https://example.com/2M/live.m3u8?_HLS_msn=273&_HLS_part=3&_HLS_skip=YES")
        XCTAssertEqual(playlist.reloadURL("https://example.com/live.m3u8?token=a", waitingFor: next, skip: false),
                       "https://example.com/live.m3u8?token=a&_HLS_msn=273&_HLS_part=3")
        // A server that cannot block is read as it is.
        let plain = try XCTUnwrap(HLSPlaylist(text: "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1,\ns0.ts\n"))
        XCTAssertEqual(plain.reloadURL("http://h/live.m3u8", waitingFor: next, skip: true), "http://h/live.m3u8")
        XCTAssertFalse(plain.isLowLatency)
        XCTAssertNil(plain.lowLatencyTarget)
    }

    /// Attribute lists as the RFC writes them: quoted values may hold commas and equals signs.
    func testAttributeListsKeepQuotedCommas() {
        let list = HLSPlaylist.attributes(#"TYPE=PART,URI="part,1=a.mp4",BYTERANGE-START=0, DURATION=0.5"#)
        XCTAssertEqual(list["TYPE"], "PART")
        XCTAssertEqual(list["URI"], "part,1=a.mp4")
        XCTAssertEqual(list["BYTERANGE-START"], "0")
        XCTAssertEqual(list["DURATION"], "0.5")
        // A hint of a byte range of a growing file is not taken (it needs ranged requests).
        let ranged = HLSPlaylist(text: "#EXTM3U\n#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"s.mp4\",BYTERANGE-START=100\n")
        XCTAssertNil(ranged?.preloadHint)
    }

    // MARK: - The edge from parts

    /// A play that started at a part 0.66 s into its segment: its first picture's stream time is
    /// there, so a segment's end is 0.66 s nearer than counted from the segment's start; and the
    /// parts of the segment being written bound the edge a part behind, not a segment.
    func testTheLedgerCountsFromTheStartingPartAndReadsTrailingParts() throws {
        var ledger = SegmentLedger(start: 10, targetDuration: 1, offsetInSegment: 0.666)
        let playlist = try XCTUnwrap(HLSPlaylist(text: """
            #EXTM3U
            #EXT-X-TARGETDURATION:1
            #EXT-X-PART-INF:PART-TARGET=0.334
            #EXT-X-MEDIA-SEQUENCE:10
            #EXT-X-PART:DURATION=0.333,URI="s10.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.333,URI="s10.1.m4s"
            #EXT-X-PART:DURATION=0.334,URI="s10.2.m4s"
            #EXTINF:1.0,
            s10.m4s
            #EXT-X-PART:DURATION=0.333,URI="s11.0.m4s",INDEPENDENT=YES
            #EXT-X-PART:DURATION=0.333,URI="s11.1.m4s"
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="s11.2.m4s"
            """))
        let evidence = ledger.add(playlist, seenAt: 100)
        // Segment 10 ends 0.334 s after the first picture; the two parts of 11 reach 0.666 s further.
        XCTAssertEqual(try XCTUnwrap(evidence.lead), 0.334 + 0.666 - 100, accuracy: 1e-9)
    }
}
