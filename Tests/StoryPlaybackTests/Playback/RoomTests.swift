import Compositor
import Foundation
@testable import StoryMedia
@testable import StoryModel
@testable import StoryPlayback
@testable import StoryRender
@testable import StoryTrace
@testable import StoryEncode
import StoryPlayerTestSupport
import XCTest

/// Live rooms: participants from real sources (local clips made here with ffmpeg, each a solid
/// colour with a tone in its own seconds, and one participant over RTMP from nginx), the
/// dominant speaker from the sound, the spotlight picture, and the lifecycle's bounds.
final class RoomTests: XCTestCase {
    var folder: ScratchFolder!

    /// The three clips' colours, and when each one's tone sounds.
    static let speakers = [("ana", "red", 440, 0.0), ("ben", "green", 550, 2.0), ("cy", "blue", 660, 4.0)]

    override func setUpWithError() throws {
        try LiveServers.require("ffmpeg")
        folder = ScratchFolder()
        for (id, colour, tone, start) in RoomTests.speakers {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=180x320:r=30:d=7",
                        "-f", "lavfi", "-i", "sine=frequency=\(tone):sample_rate=48000:duration=7",
                        "-af", "volume=enable='not(between(t,\(start),\(start + 2)))':volume=0",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest",
                        folder.file("\(id).mp4")])
        }
        for colour in ["orange", "purple", "teal"] {
            try ffmpeg(["-f", "lavfi", "-i", "color=c=\(colour):s=64x64", "-frames:v", "1", folder.file("\(colour).jpg")])
        }
    }

    /// XCTest keeps every test case to the end: a folder left in one would be a leak report
    /// under `make sanitize`.
    override func tearDown() { folder = nil }

    func roomBoard(participants: String? = nil, script: String = "", duration: Double = 7, width: Int = 144) throws -> Storyboard {
        let list = participants ?? """
        {"id": "ana", "uri": "ana.mp4", "avatar": "orange.jpg"}, {"id": "ben", "uri": "ben.mp4", "avatar": "purple.jpg"},
        {"id": "cy", "uri": "cy.mp4", "avatar": "teal.jpg"}
        """
        return try Storyboard.parse("""
        {"canvas": {"width": \(width), "height": \(width * 16 / 9), "fps": 10}, "duration": \(duration),
         "stories": [{"id": "panel", "room": {"participants": [\(list)]}, "duration": 20}], "script": [\(script)]}
        """, folder: folder.path)
    }

    /// The colour at the centre of the large area in frame `n`.
    func largeCentre(_ output: ScratchFolder, frame n: Int, width: Int = 144) throws -> RGBAColor {
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, n))
        let centre = RoomLayout(width: width, height: width * 16 / 9).largeCentre
        return frame[Int(centre.x), Int(centre.y)]
    }

    // MARK: - Who is large

    /// `speaker` events follow the tones, each within the decision delay (two winning decisions
    /// in a row, 300 ms apart, over 300 ms of windows each: 0.3 to 0.9 s after the voice starts),
    /// and a second after each change the large area shows that participant's colour.
    func testSpeakerFollowsTheSoundAndTheLargeAreaFollowsTheSpeaker() throws {
        let (_, events, output) = try render(roomBoard())
        let speakers = events.of(.speaker)
        XCTAssertEqual(speakers.map(\.participant), ["ana", "ben", "cy"], "\(events.map(\.jsonLine))")
        for (event, (_, colour, _, start)) in zip(speakers, RoomTests.speakers) {
            XCTAssertGreaterThanOrEqual(event.t, start + 0.3 - 1e-9, "\(event.jsonLine)")
            XCTAssertLessThanOrEqual(event.t, start + 0.9 + 1e-9, "\(event.jsonLine)")
            XCTAssertEqual(dominantChannel(try largeCentre(output, frame: Int(((event.t + 1) * 10).rounded()))), colour)
        }
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 3), [])
        XCTAssertFalse(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAudio: 2).isEmpty,
                       "--max-audio bounds the audio players")
        // One video player at a time, each for who was large, and one audio player per participant.
        XCTAssertEqual(events.of(.play).filter { $0.media == nil }.map(\.participant), ["ana", "ben", "cy"])
        XCTAssertEqual(events.of(.play).filter { $0.media == "audio" }.map(\.participant), ["ana", "ben", "cy"])
    }

    /// A pinned participant stays large whoever speaks; unpinned, the speaker takes over again.
    func testAPinOverridesTheSpeaker() throws {
        let (_, events, output) = try render(roomBoard(script: """
        {"at": 0.5, "action": "pin", "participant": "cy"}, {"at": 5, "action": "unpin", "participant": "cy", "story": "panel"}
        """))
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["ana", "ben", "cy"], "the speaker is still followed")
        for t in [1.5, 3.0, 4.5] {
            XCTAssertEqual(dominantChannel(try largeCentre(output, frame: Int(t * 10))), "blue", "pinned at \(t) s")
        }
        XCTAssertEqual(events.of(.play).filter { $0.media == nil }.map(\.participant), ["ana", "cy"])
    }

    /// Of two pinned participants, the later pin is large, as Stream's `pinned` comparator
    /// orders them. Found by an audit: pinning `cy` while `ben` was pinned left `ben` large,
    /// and no player was made for `cy`, until `ben` was unpinned.
    func testTheLatestPinIsLarge() throws {
        let (_, events, output) = try render(roomBoard(script: """
        {"at": 0.5, "action": "pin", "participant": "ben"}, {"at": 2.5, "action": "pin", "participant": "cy"}
        """, duration: 4))
        XCTAssertEqual(dominantChannel(try largeCentre(output, frame: 20)), "green", "at 2 s: ben, pinned at 0.5 s")
        XCTAssertEqual(dominantChannel(try largeCentre(output, frame: 35)), "blue", "at 3.5 s: cy, pinned later, at 2.5 s")
        XCTAssertEqual(events.of(.play).filter { $0.media == nil }.map(\.participant), ["ana", "ben", "cy"])
    }

    func testParticipantsAlreadyPinnedInTheStoryboardStayLarge() throws {
        let (_, _, output) = try render(roomBoard(participants: """
        {"id": "ana", "uri": "ana.mp4"}, {"id": "ben", "uri": "ben.mp4", "pinned": true}, {"id": "cy", "uri": "cy.mp4"}
        """, duration: 5))
        for t in [1.0, 4.5] { XCTAssertEqual(dominantChannel(try largeCentre(output, frame: Int(t * 10))), "green") }
    }

    // MARK: - The strip

    /// Avatars in the strip, in order after the large one; more than fit: a `+N` chip last.
    func testTheStripShowsAvatarsAndAMoreChip() throws {
        let avatars = ["orange", "purple", "teal"]
        let list = (1...9).map { #"{"id": "p\#($0)", "uri": "ana.mp4", "avatar": "\#(avatars[$0 % 3]).jpg"}"# }.joined(separator: ", ")
        let (_, events, output) = try render(roomBoard(participants: list, duration: 0.3))
        let frame = try RGBAImage(contentsOfPNG: StoryRenderer.framePath(output.path, 2))
        let layout = RoomLayout(width: 144, height: 256)
        XCTAssertEqual(layout.slots.count, 7)
        // p1 is large (all silent at first, ordered by id); p2 … p7 in the first six slots.
        for (slot, index) in zip(layout.slots.prefix(6), 2...7) {
            let expected = RGBAImage(width: 1, height: 1, fill: RGBAColor(hex: ["#ffa500", "#800080", "#008080"][index % 3])!)[0, 0]
            XCTAssertLessThan(frame[Int(slot.x), Int(slot.y)].distance(to: expected), 40, "slot for p\(index)")
        }
        let chip = layout.slots[6]
        XCTAssertEqual(frame[Int(chip.x) - Int(layout.avatarDiameter / 2) + 2, Int(chip.y)], RoomPicture.placeholder, "the +N chip")
        var white = 0
        let r = Int(layout.avatarDiameter / 2)
        for y in Int(chip.y) - r..<Int(chip.y) + r { for x in Int(chip.x) - r..<Int(chip.x) + r where frame[x, y] == .white { white += 1 } }
        XCTAssertGreaterThan(white, 3, "the chip's label")
        XCTAssertEqual(events.of(.play).filter { $0.media == "audio" }.count, 9)
    }

    /// A participant with sound and no video (an .m4a, as in the issue's example) speaks like any
    /// other, and while it is large the area shows its avatar over its blurred avatar.
    func testASoundOnlyParticipantIsShownByItsAvatar() throws {
        try ffmpeg(["-i", folder.file("cy.mp4"), "-vn", "-c:a", "copy", folder.file("cy.m4a")])
        let (_, events, output) = try render(roomBoard(participants: """
        {"id": "ana", "uri": "ana.mp4", "avatar": "orange.jpg"}, {"id": "cy", "uri": "cy.m4a", "avatar": "teal.jpg"}
        """))
        XCTAssertEqual(events.of(.failed), [], "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["ana", "cy"])
        XCTAssertEqual(events.of(.play).filter { $0.media == nil }.map(\.participant), ["ana"], "no video player for a sound file")
        let centre = try largeCentre(output, frame: 60)
        XCTAssertLessThan(centre.distance(to: RGBAColor(red: 0, green: 128, blue: 128)), 40, "cy's teal avatar, large: \(centre)")
    }

    /// `--mp4` mixes every participant's sound: each one's tone is heard in its own seconds.
    func testTheClipMixesEveryParticipant() throws {
        let output = ScratchFolder()
        try render(roomBoard(duration: 6), into: output) { options in
            options.writeFrames = false
            options.clip = ClipOptions(path: output.file("room.mp4"))
        }
        let raw = output.file("room.f32")
        try ffmpeg(["-i", output.file("room.mp4"), "-vn", "-ac", "1", "-ar", "8000", "-f", "f32le", raw])
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        func level(_ from: Double, _ to: Double) -> Double {
            DominantSpeaker.rms(Array(samples[Int(from * 8000)..<min(samples.count, Int(to * 8000))]))
        }
        for (id, _, _, start) in RoomTests.speakers {
            XCTAssertGreaterThan(level(start + 0.5, start + 1.5), 0.1, "\(id)'s tone is in the clip")
        }
    }

    /// A room lasts its duration, then the viewer moves on to the next story as after any other;
    /// every player of the room is stopped when it leaves the screen.
    func testARoomEndsAfterItsDurationAndTheViewerMovesOn() throws {
        let board = try Storyboard.parse("""
        {"canvas": {"width": 72, "height": 128, "fps": 10}, "duration": 2.5,
         "stories": [{"id": "panel", "room": {"participants": [{"id": "ana", "uri": "ana.mp4"}]}, "duration": 1},
                     {"id": "next", "items": [{"uri": "orange.jpg"}]}]}
        """, folder: folder.path)
        let (summary, events, _) = try render(board)
        XCTAssertEqual(summary.failedStories.map(\.id), [], "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.play, story: "next").count, 1, "the viewer moved on")
        let roomStops = events.of(.stop, story: "panel")
        XCTAssertEqual(roomStops.count, 2, "the audio and the video player")
        XCTAssertTrue(roomStops.allSatisfy { $0.t < 2 }, "dropped when the room left the screen")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// A participant whose source fails shows its avatar with an error mark; the room goes on.
    func testAFailedParticipantDoesNotStopTheRoom() throws {
        let (summary, events, _) = try render(roomBoard(participants: """
        {"id": "ana", "uri": "ana.mp4"}, {"id": "gone", "uri": "missing.mp4", "avatar": "teal.jpg"}
        """, duration: 1.5))
        let failed = try XCTUnwrap(events.of(.failed).first)
        XCTAssertEqual(failed.participant, "gone")
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["ana"])
        XCTAssertEqual(summary.frames, 15)
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n")), [])
    }

    /// A participant publishing over RTMP to nginx (video with a quiet continuous tone) beside a
    /// local clip: its sound is measured from the live stream, it becomes the dominant speaker
    /// while the other is silent and gives way when the other speaks louder; the bounds hold.
    func testAParticipantOverRTMP() throws {
        try LiveServers.require("nginx")
        let servers = ServerSet()
        defer { servers.stopAll() }
        let port = try servers.rtmpServer()
        let url = "rtmp://127.0.0.1:\(port)/live/dee"
        let publisher = try servers.publish(.videoAndSound, to: url, format: "flv")
        XCTAssertTrue(LiveServers.waitUntil(20) { (try? MediaProbe.run(url, timeouts: Timeouts(open: 2, read: 2))) != nil },
                      publisher.output)
        let (_, events, _) = try render(roomBoard(participants: """
        {"id": "ben", "uri": "ben.mp4", "avatar": "purple.jpg"}, {"id": "dee", "uri": "\(url)", "avatar": "teal.jpg"}
        """, duration: 3))
        XCTAssertEqual(events.of(.failed), [], "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.play).filter { $0.media == "audio" }.compactMap(\.participant).sorted(), ["ben", "dee"])
        // dee's tone plays throughout at a quarter of ben's level; ben speaks from 2 s, louder.
        XCTAssertEqual(events.of(.speaker).map(\.participant), ["dee", "ben"], "\(events.map(\.jsonLine))")
        XCTAssertEqual(events.of(.play).filter { $0.media == nil }.map(\.participant), ["ben", "dee", "ben"],
                       "large: first by id, then whoever speaks, then the dominant speaker")
        XCTAssertEqual(TraceCheck.check(events.map(\.jsonLine).joined(separator: "\n"), maxAlive: 1, maxAudio: 2), [])
    }

    // MARK: - Storyboard

    func testRoomStoryboardErrorsNameTheirPath() {
        func error(_ story: String, script: String = "") -> String {
            do {
                _ = try Storyboard.parse(#"{"stories": [\#(story)], "script": [\#(script)]}"#)
                return "parsed"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(error(#"{"id": "r", "room": {"participants": [{"id": "a", "uri": "a.mp4"}, {"id": "a", "uri": "b.mp4"}]}}"#),
                       #"stories[0].room.participants[1].id: duplicate id "a" (also participants[0].id)"#)
        XCTAssertEqual(error(#"{"id": "r", "room": {"participants": [{"id": "a"}]}}"#), "stories[0].room.participants[0].uri: missing")
        XCTAssertEqual(error(#"{"id": "r", "items": [{"uri": "x.mp4"}], "room": {"participants": [{"id": "a", "uri": "a.mp4"}]}}"#),
                       "stories[0].items: a story has either items or a room, not both")
        XCTAssertEqual(error(#"{"id": "r", "room": {"participants": [{"id": "a", "uri": "a.mp4"}]}}"#,
                             script: #"{"at": 1, "action": "pin", "participant": "zed"}"#),
                       #"script[0].participant: no room has participant "zed""#)
        XCTAssertEqual(error(#"{"id": "r", "room": {"participants": [{"id": "a", "uri": "a.mp4", "url": "b"}]}}"#),
                       #"stories[0].room.participants[0].url: unknown key; did you mean "uri"?"#)
        XCTAssertEqual(error(#"{"id": "r", "room": {"participants": [{"id": "a", "uri": "a.mp4"}], "duration": 5}}"#),
                       #"stories[0].room.duration: a room lasts its story's "duration": put it beside "room", at stories[0].duration"#)
        // A near miss of a key the room does not take is not told to write that key.
        XCTAssertEqual(error(#"{"id": "r", "room": {"participants": [{"id": "a", "uri": "a.mp4"}], "durtion": 5}}"#),
                       "stories[0].room.durtion: unknown key")
    }
}
