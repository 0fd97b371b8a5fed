import Compositor
@testable import StoryTrace
import StoryPlayerTestSupport
import XCTest

/// Issue 61 item 15: the timeline picture draws a room's concurrent tile players (a grid's page,
/// `"media": "tile"`) in lanes of their own, one per participant under the room's lane, as the
/// report's lanes keep them apart; on the room's lane they lay on each other, so four tiles read
/// as one bar. No band is drawn on a tile lane: no flag bounds tiles.
final class TimelineTileLanesTests: XCTestCase {
    func event(_ t: Double, _ kind: TraceEvent.Kind, player: Int, participant: String, media: String?) -> TraceEvent {
        var event = TraceEvent(t: t, wall: 0, event: kind, story: "panel", player: player)
        event.participant = participant
        event.media = media
        return event
    }

    /// Page 1 of a grid (ana, ben, cy, dee) from 0 s to 2 s, each with its sound player; then
    /// the spotlight's one large player for ana.
    var trace: [TraceEvent] {
        let people = ["ana", "ben", "cy", "dee"]
        var events: [TraceEvent] = []
        for (index, name) in people.enumerated() {
            events.append(event(0, .play, player: 1 + index, participant: name, media: "audio"))
            events.append(event(0, .play, player: 10 + index, participant: name, media: TraceEvent.tileMedia))
        }
        for (index, name) in people.enumerated() { events.append(event(2, .stop, player: 10 + index, participant: name, media: TraceEvent.tileMedia)) }
        events.append(event(2, .play, player: 20, participant: "ana", media: nil))
        events.append(event(4, .stop, player: 20, participant: "ana", media: nil))
        for (index, name) in people.enumerated() { events.append(event(4, .stop, player: 1 + index, participant: name, media: "audio")) }
        return events
    }

    func testEachParticipantsTilePlayersHaveALaneOfTheirOwn() throws {
        let events = trace
        let layout = LifecycleTimeline.layout(events, width: 900)
        XCTAssertEqual(layout.lanes, ["panel", "panel · ana (tile)", "panel · ben (tile)", "panel · cy (tile)", "panel · dee (tile)",
                                      "panel · ana", "panel · ben", "panel · cy", "panel · dee"])
        let picture = LifecycleTimeline.render(events, width: 900)
        let storyColour = LifecycleTimeline.palette[0]
        // At 1 s each tile lane has its bar, in the room's colour; the room's own lane is empty
        // (no large player yet) and has no band either: the four tiles are not video players.
        let x = layout.x(1)
        for name in ["ana", "ben", "cy", "dee"] {
            let centre = try XCTUnwrap(layout.barCentre(LifecycleTimeline.LaneMap.tileName(story: "panel", participant: name)))
            XCTAssertEqual(picture[x, centre], storyColour, "\(name)'s tile bar")
            let top = try XCTUnwrap(layout.laneTop(LifecycleTimeline.LaneMap.tileName(story: "panel", participant: name)))
            XCTAssertEqual(picture[x, top + 2], LifecycleTimeline.background, "no band on \(name)'s tile lane")
        }
        let room = try XCTUnwrap(layout.barCentre("panel"))
        XCTAssertEqual(picture[x, room], LifecycleTimeline.background, "the tiles are not on the room's lane")
        // At 3 s the large player is on the room's lane, and the tile lanes are empty.
        XCTAssertEqual(picture[layout.x(3), room], storyColour)
        let anaTile = try XCTUnwrap(layout.barCentre("panel · ana (tile)"))
        XCTAssertEqual(picture[layout.x(3), anaTile], LifecycleTimeline.background)
    }

    /// A story after the room keeps its own colour: tile lanes are not stories.
    func testTileLanesDoNotShiftTheStoriesColours() throws {
        var events = trace
        events.append(TraceEvent(t: 4, wall: 0, event: .play, story: "after", item: 0, player: 30))
        events.append(TraceEvent(t: 5, wall: 0, event: .stop, story: "after", item: 0, player: 30))
        let layout = LifecycleTimeline.layout(events, width: 900)
        let picture = LifecycleTimeline.render(events, width: 900)
        XCTAssertEqual(picture[layout.x(4.5), try XCTUnwrap(layout.barCentre("after"))], LifecycleTimeline.palette[1])
    }
}
