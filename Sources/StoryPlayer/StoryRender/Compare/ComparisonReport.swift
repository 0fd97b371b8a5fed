import Compositor

/// What to call a difference (`render-stories compare`'s thresholds); the report's
/// `thresholds`.
public struct ComparisonOptions: Sendable, Codable {
    /// A frame below either is changed; with neither, a frame is changed when any sample of it
    /// differs (a render is deterministic: the same storyboard, media and build make the same
    /// bytes).
    public var minSSIM: Double?
    public var minPSNR: Double?
    /// How many changed, inserted and deleted frames together still pass.
    public var maxChangedFrames = 0
    /// Only this part of each frame is compared.
    public var region: TileRect?
    /// Each cube face is measured on its own too (`--face`), inside the corners its render's
    /// `frames.jsonl` gives; a face below `minSSIM` makes its frame changed.
    public var faces = false
    /// Trace fields whose differences do not count (besides the wall clock's, which never do);
    /// not in the report's JSON.
    public var ignoredTraceFields: Set<String> = []

    public init(minSSIM: Double? = nil, minPSNR: Double? = nil, maxChangedFrames: Int = 0, region: TileRect? = nil,
                faces: Bool = false, ignoredTraceFields: Set<String> = []) {
        self.minSSIM = minSSIM
        self.minPSNR = minPSNR
        self.maxChangedFrames = maxChangedFrames
        self.region = region
        self.faces = faces
        self.ignoredTraceFields = ignoredTraceFields
    }

    enum CodingKeys: String, CodingKey {
        case region, faces
        case minSSIM = "min_ssim"
        case minPSNR = "min_psnr"
        case maxChangedFrames = "max_changed_frames"
    }
}

/// One frame of the comparison: a frame of A and its partner in B, or one that only one side has.
public struct ComparedFrame: Sendable, Equatable, Codable {
    public enum Verdict: String, Sendable, Codable {
        /// Within the thresholds (identical when no threshold was given).
        case same
        case changed
        /// In B only.
        case inserted
        /// In A only.
        case deleted
    }

    /// The frame's number in A and in B (nil: that side has none).
    public let a: Int?
    public let b: Int?
    public let verdict: Verdict
    /// Whole-frame SSIM and per plane (Y, Cb, Cr); nil for an inserted or deleted frame, 0 for
    /// frames of different sizes.
    public let ssim: Double?
    public let ssimPlanes: [Double]?
    /// PSNR in dB; nil when identical (or unpaired).
    public let psnr: Double?
    /// Why a pair could not be measured ("720x1280 against 360x640").
    public let note: String?
    /// With `--face`: each cube face measured inside its corners (A's frame's record, or B's when
    /// A has none: a clip), cut to `--region` when given.
    public var faces: [ComparedFace]? = nil

    enum CodingKeys: String, CodingKey {
        case a, b, verdict, ssim, psnr, note, faces
        case ssimPlanes = "ssim_planes"
    }
}

/// One story's face on a compared frame (`--face`).
public struct ComparedFace: Sendable, Equatable, Codable {
    /// The story's id, and the face's box on the frame (its corners' bounds, cut to the frame
    /// and to `--region`).
    public let story: String
    public let box: TileRect
    /// SSIM inside the box; nil when the box is under 2x2 pixels.
    public let ssim: Double?
}

/// The outcome of `render-stories compare A B`: every frame's figures, and the verdict.
public struct ComparisonReport: Sendable, Codable {
    public let a: String
    public let b: String
    public let framesA: Int
    public let framesB: Int
    /// How frames were paired: `trace` (by what each frame showed, from both renders'
    /// `frames.jsonl`: page offset, stories and items on the faces, their media times),
    /// `content` (by their pictures, `FrameAlignment`), or `index` (frame n with frame n, when
    /// they differ in too many places to align).
    public let pairing: String
    public let frames: [ComparedFrame]
    /// Whether both sides had a trace to compare (two render folders), and how they differ.
    public let traceCompared: Bool
    public let trace: [TraceDifference]
    public let thresholds: ComparisonOptions
    /// What `compare.html` needs besides the figures; not in the JSON.
    var page: PageFacts?

    struct PageFacts: Sendable {
        let kindA: ComparedRender.Kind
        let kindB: ComparedRender.Kind
        let pictures: ComparisonPictures.Written?
    }

    public var changed: Int { frames.count { $0.verdict == .changed } }
    public var inserted: Int { frames.count { $0.verdict == .inserted } }
    public var deleted: Int { frames.count { $0.verdict == .deleted } }
    /// Passes when the changed, inserted and deleted frames are no more than allowed, and the
    /// traces do not differ.
    public var passed: Bool { changed + inserted + deleted <= thresholds.maxChangedFrames && trace.isEmpty }
    /// The lowest SSIM of a paired frame, and its A number.
    public var worst: (ssim: Double, a: Int)? {
        frames.compactMap { f in f.ssim.flatMap { s in f.a.map { (s, $0) } } }.min { $0.0 < $1.0 }
    }
    public var meanSSIM: Double? {
        let all = frames.compactMap(\.ssim)
        return all.isEmpty ? nil : all.reduce(0, +) / Double(all.count)
    }
    public var minPSNR: Double? { frames.compactMap(\.psnr).min() }

    enum CodingKeys: String, CodingKey {
        case a, b, pairing, frames, thresholds, trace
        case traceCompared = "trace_compared"
        case framesA = "frames_a"
        case framesB = "frames_b"
    }
}
