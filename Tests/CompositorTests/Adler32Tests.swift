import CStoryPNG
import XCTest

/// The vector Adler-32 against the textbook definition: every length around its 32-byte steps
/// and its 5536-byte rounds, every misalignment, and the all-0xFF input that stresses its lanes.
final class Adler32Tests: XCTestCase {
    /// RFC 1950's definition, one byte at a time.
    func reference(_ adler: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        var s1 = adler & 0xFFFF, s2 = adler >> 16
        for byte in bytes {
            s1 = (s1 + UInt32(byte)) % 65521
            s2 = (s2 + s1) % 65521
        }
        return s2 << 16 | s1
    }

    func vector(_ adler: UInt32, _ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.withUnsafeBufferPointer { story_png_adler32(adler, $0.baseAddress, $0.count) }
    }

    func testMatchesTheDefinition() {
        var generator = SplitMix64(seed: 1)
        let noise = (0..<70_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let full = [UInt8](repeating: 0xFF, count: 70_000)
        for bytes in [noise, full] {
            for length in Array(0...100) + [5535, 5536, 5537, 5536 * 2 + 31, 65_536, 69_999] {
                for offset in [0, 1, 7, 31] where offset + length <= bytes.count {
                    let slice = bytes[offset..<(offset + length)]
                    for start: UInt32 in [1, 0xFFF0_FFF0] {
                        XCTAssertEqual(vector(start, slice), reference(start, slice), "length \(length) offset \(offset) start \(start)")
                    }
                }
            }
        }
    }

    func testChunksChainLikeOneCall() {
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
        var adler: UInt32 = 1
        var start = 0
        for size in [1, 33, 5536, 65_535, 7, 100_000] {
            let end = min(bytes.count, start + size)
            adler = vector(adler, bytes[start..<end])
            start = end
        }
        adler = vector(adler, bytes[start...])
        XCTAssertEqual(adler, reference(1, bytes[...]))
    }
}
