@testable import StoryPlayback
import StoryPlayerTestSupport
import XCTest

/// Issue 56 item 3: a participant keeps its tile until it must move. The scripted talk is the
/// issue's: 9 participants, pages of 6, 60 s, 20 changes of speaker.
final class RoomSeatingTests: XCTestCase {
    let people = ["ana", "ben", "cy", "dee", "eve", "fay", "gus", "hal", "ivy"]

    func testNewcomersTakeTheFirstFreeTilesInRankingOrder() {
        var seating = RoomSeating(perPage: 6)
        let change = seating.update(present: people, speaker: nil, recent: [])
        XCTAssertEqual(change.joined, people)
        XCTAssertEqual(seating.page(0), Array(people.prefix(6)))
        XCTAssertEqual(seating.page(1), ["gus", "hal", "ivy"])
        XCTAssertEqual(seating.pageCount, 2)
        XCTAssertEqual(seating.moves, 0)
        // Nothing changed: nothing moves.
        XCTAssertTrue(seating.update(present: people, speaker: "ben", recent: ["ben"]).isEmpty)
    }

    /// The figure: at most one tile move per change that brings a speaker from another
    /// page, none otherwise. 20 changes, alternating between page 1 and page 2 speakers and
    /// back to speakers who were brought up before.
    func testAScriptedTalkMovesOneTileForEachSpeakerFromAnotherPageAndNoneOtherwise() {
        var seating = RoomSeating(perPage: 6)
        _ = seating.update(present: people, speaker: nil, recent: [])
        let talk = ["ana", "gus", "ben", "hal", "gus", "cy", "ivy", "ana", "dee", "hal",
                    "eve", "fay", "ivy", "ben", "gus", "cy", "dee", "hal", "ana", "ivy"]
        XCTAssertEqual(talk.count, 20)
        var recent: [String] = []
        var fromAnotherPage = 0
        for speaker in talk {
            let before = seating.moves
            let elsewhere = seating.page(of: speaker) != 0
            if elsewhere { fromAnotherPage += 1 }
            recent.removeAll { $0 == speaker }
            recent.insert(speaker, at: 0)
            let change = seating.update(present: people, speaker: speaker, recent: recent)
            XCTAssertEqual(seating.moves - before, elsewhere ? 1 : 0, "\(speaker): \(change.reasons)")
            XCTAssertEqual(seating.page(of: speaker), 0, "the speaker is on page 1")
            XCTAssertEqual(change.moved, elsewhere ? [speaker] : [])
            XCTAssertEqual(Set(seating.page(0) + seating.page(1)), Set(people), "nobody lost")
        }
        print("scripted talk: 9 participants, 20 speaker changes, \(fromAnotherPage) from page 2, \(seating.moves) tile moves")
        XCTAssertEqual(seating.moves, fromAnotherPage)
        XCTAssertGreaterThanOrEqual(fromAnotherPage, 5, "the talk brings speakers up from page 2")
    }

    /// The one displaced is the page-1 participant who spoke least recently (never, first).
    func testTheSpeakerTakesTheTileOfWhoSpokeLeastRecently() {
        var seating = RoomSeating(perPage: 3)
        _ = seating.update(present: ["a", "b", "c", "d"], speaker: nil, recent: [])
        let change = seating.update(present: ["a", "b", "c", "d"], speaker: "d", recent: ["d", "a", "c"])
        XCTAssertEqual(seating.page(0), ["a", "d", "c"], "b never spoke: d takes its tile")
        XCTAssertEqual(seating.page(1), ["b"])
        XCTAssertTrue(change.reasons.joined().contains("in place of b"), "\(change.reasons)")
    }

    /// A leaver's tile is taken by the last participant, so no page has a hole while a later
    /// one has people: one move. Leaving from the last tile moves nobody.
    func testALeaverIsReplacedByTheLastTileOnly() {
        var seating = RoomSeating(perPage: 3)
        _ = seating.update(present: ["a", "b", "c", "d", "e"], speaker: nil, recent: [])
        var change = seating.update(present: ["a", "c", "d", "e"], speaker: nil, recent: [])
        XCTAssertEqual(change.left, ["b"])
        XCTAssertEqual(change.moved, ["e"])
        XCTAssertEqual(seating.page(0), ["a", "e", "c"])
        XCTAssertEqual(seating.page(1), ["d"])
        change = seating.update(present: ["a", "c", "e"], speaker: nil, recent: [])
        XCTAssertEqual(change.moved, [], "the last tile left: nobody moves")
        XCTAssertEqual(seating.pageCount, 1)
        XCTAssertEqual(seating.moves, 1)
    }
}
