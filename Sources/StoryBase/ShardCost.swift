/// What a shard spends that the whole render does not: the work of reaching its first frame.
///
/// A shard passes over the frames before its range without drawing them, but the items playing
/// when its range starts must show what a whole render shows there: their sources are opened
/// again (and the items it passed over opened for their lengths), the decoder seeks to the
/// keyframe before the shard's first picture, and the pictures from that keyframe on are
/// decoded forward though not shown. Split so that `bench/shard-cost.sh` can say which of the
/// three an overhead is, and what each saving bought (`summary.json`'s `shard_cost`).
public struct ShardCost: Sendable, Equatable {
    public enum Part: Sendable {
        /// Sources opened for items the shard began before its first frame.
        case opening
        /// Seeks to the keyframe before an item's first needed picture.
        case seeking
        /// Pictures decoded after the seek that were never shown (before the first needed one).
        case decodingForward
    }

    /// How many (sources, seeks, pictures) and the CPU seconds they took, across threads.
    public struct Figure: Sendable, Equatable {
        public var count = 0
        public var cpuSeconds = 0.0
    }

    public var opening = Figure()
    public var seeking = Figure()
    public var decodingForward = Figure()
    /// Packets sent while decoding forward with leave to drop their pictures (older than a newer
    /// one already sent at or before the shard's start): the decoder skips those that are not
    /// references, sparing their decoding.
    public var droppablePackets = 0

    public init() {}

    public subscript(part: Part) -> Figure {
        get {
            switch part {
            case .opening: opening
            case .seeking: seeking
            case .decodingForward: decodingForward
            }
        }
        set {
            switch part {
            case .opening: opening = newValue
            case .seeking: seeking = newValue
            case .decodingForward: decodingForward = newValue
            }
        }
    }
}
