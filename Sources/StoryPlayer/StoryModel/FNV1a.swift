/// 64-bit FNV-1a: enough to tell two texts apart (a storyboard's digest, a compared frame's
/// key), not a guard against anyone forging one.
package enum FNV1a {
    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
