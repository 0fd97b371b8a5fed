import Synchronization

/// The 256-entry tables an opaque shape's covered pixels are mixed through, kept once made: the
/// overlay's scrim asks for the same few dozen (alpha, value) pairs on every frame, and making a
/// table (256 roundings and an array) for each of its rows was half of the overlay step.
enum BlendTables {
    /// Entries kept at most (256 bytes each): every (alpha, value) pair is 65536, more than a
    /// render ever asks for; past the limit tables are made and not kept.
    static let limit = 4096
    private static let kept = Mutex<[UInt16: [UInt8]]>([:])

    /// `table[v]` is `v` mixed with `value` by `alpha` / 255 (`RGBAImage.mix`): `blendOpaque` at
    /// full coverage, so a pixel mixed through it is the pixel `blendOpaque` gives.
    static func table(alpha: UInt8, value: UInt8) -> [UInt8] {
        let key = UInt16(alpha) << 8 | UInt16(value)
        if let table = kept.withLock({ $0[key] }) { return table }
        let amount = Double(alpha) / 255
        let table = (0...255).map { RGBAImage.mix(UInt8($0), toward: value, by: amount) }
        kept.withLock { if $0.count < limit { $0[key] = table } }
        return table
    }
}
