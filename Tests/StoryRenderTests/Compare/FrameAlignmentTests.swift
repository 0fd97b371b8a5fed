@testable import StoryRender
import StoryTestSupport
import XCTest

/// Two renders' frames aligned by content (`FrameAlignment`): a dropped frame is one deletion
/// with the rest paired with their equals, a changed frame is replaced in place, even among
/// frames that all look alike, and on seeded random sequences every alignment is valid and
/// costs what the plain dynamic programme finds cheapest.
final class FrameAlignmentTests: XCTestCase {
    typealias Step = FrameAlignment.Step

    func testADroppedFrameIsOneDeletion() throws {
        let a: [UInt64] = [1, 2, 3, 4, 5, 6], b: [UInt64] = [1, 2, 4, 5, 6]
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align(a, b, maxEdits: 10)),
                       [.same(a: 0, b: 0), .same(a: 1, b: 1), .deleted(a: 2), .same(a: 3, b: 2), .same(a: 4, b: 3), .same(a: 5, b: 4)])
    }

    func testAnInsertedFrameAndAChangedOne() throws {
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([1, 2, 3], [1, 9, 2, 3], maxEdits: 10)),
                       [.same(a: 0, b: 0), .inserted(b: 1), .same(a: 1, b: 2), .same(a: 2, b: 3)])
        // A frame that changed is a deletion and an insertion in one run: replaced, in place.
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([1, 2, 3], [1, 7, 3], maxEdits: 10)),
                       [.same(a: 0, b: 0), .replaced(a: 1, b: 1), .same(a: 2, b: 2)])
        // A frame changed among frames that look alike: changed in place, not inserted there
        // and one of its neighbours deleted elsewhere.
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([1, 2, 2, 2, 2], [1, 2, 9, 2, 2], maxEdits: 10)),
                       [.same(a: 0, b: 0), .same(a: 1, b: 1), .replaced(a: 2, b: 2), .same(a: 3, b: 3), .same(a: 4, b: 4)])
        // Two frames later: the first two of B are new, the last two of A are gone.
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([1, 2, 3, 4], [8, 9, 1, 2], maxEdits: 10)),
                       [.inserted(b: 0), .inserted(b: 1), .same(a: 0, b: 2), .same(a: 1, b: 3), .deleted(a: 2), .deleted(a: 3)])
    }

    func testEmptyAndTooFarApart() throws {
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([], [], maxEdits: 0)), [])
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([1, 2], [], maxEdits: 5)), [.deleted(a: 0), .deleted(a: 1)])
        XCTAssertNil(FrameAlignment.align([1, 2, 3, 4], [5, 6, 7, 8], maxEdits: 7), "8 insertions and deletions needed")
        XCTAssertEqual(try XCTUnwrap(FrameAlignment.align([1, 2, 3, 4], [5, 6, 7, 8], maxEdits: 8)),
                       [.replaced(a: 0, b: 0), .replaced(a: 1, b: 1), .replaced(a: 2, b: 2), .replaced(a: 3, b: 3)])
        XCTAssertEqual(FrameAlignment.byIndex([1, 2, 3], [1, 5]), [.same(a: 0, b: 0), .replaced(a: 1, b: 1), .deleted(a: 2)])
    }

    func testRandomSequencesAlignValidlyAndCheapest() throws {
        var random = SplitMix64(seed: 64)
        for round in 0..<300 {
            let a = (0..<Int.random(in: 0...30, using: &random)).map { _ in UInt64.random(in: 0...4, using: &random) }
            let b = (0..<Int.random(in: 0...30, using: &random)).map { _ in UInt64.random(in: 0...4, using: &random) }
            let steps = try XCTUnwrap(FrameAlignment.align(a, b, maxEdits: 100), "round \(round)")
            // Every frame of each side once, in order; equal where said to be.
            var nextA = 0, nextB = 0, cost = 0
            for step in steps {
                switch step {
                case .same(let i, let j):
                    XCTAssertEqual(a[i], b[j])
                    XCTAssertEqual([i, j], [nextA, nextB])
                    nextA += 1; nextB += 1
                case .replaced(let i, let j):
                    XCTAssertEqual([i, j], [nextA, nextB])
                    XCTAssertNotEqual(a[i], b[j], "equal frames are the same, never changed")
                    nextA += 1; nextB += 1; cost += FrameAlignment.changeCost
                case .deleted(let i):
                    XCTAssertEqual(i, nextA)
                    nextA += 1; cost += FrameAlignment.insertionCost
                case .inserted(let j):
                    XCTAssertEqual(j, nextB)
                    nextB += 1; cost += FrameAlignment.insertionCost
                }
            }
            XCTAssertEqual([nextA, nextB], [a.count, b.count], "round \(round)")
            XCTAssertEqual(cost, cheapest(a, b), "round \(round): \(a) \(b)")
        }
    }

    /// The textbook dynamic programme over the whole grid, at the same costs.
    func cheapest(_ a: [UInt64], _ b: [UInt64]) -> Int {
        let indel = FrameAlignment.insertionCost, change = FrameAlignment.changeCost
        var row = (0...b.count).map { $0 * indel }
        for (i, x) in a.enumerated() {
            var diagonal = row[0]
            row[0] = (i + 1) * indel
            for j in 0..<b.count {
                let above = row[j + 1]
                row[j + 1] = min(diagonal + (x == b[j] ? 0 : change), above + indel, row[j] + indel)
                diagonal = above
            }
        }
        return row[b.count]
    }
}
