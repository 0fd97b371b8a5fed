internal import CFFmpeg

/// What a video stream says of its colour, as `probe` reports it: FFmpeg's names of its
/// transfer (`arib-std-b67`, `smpte2084`, `bt709`) and primaries (`bt2020`, `bt709`).
public struct VideoColour: Sendable, Equatable {
    /// nil when the stream does not say.
    public var transfer: String?
    public var primaries: String?
    /// HLG or PQ: shown tone-mapped to SDR (`HDRToneMapper`).
    public var isHDR: Bool

    public init(transfer: String? = nil, primaries: String? = nil, isHDR: Bool = false) {
        self.transfer = transfer
        self.primaries = primaries
        self.isHDR = isHDR
    }

    /// The decoder's values once it has decoded a picture (an HEVC stream's VUI), else the
    /// container's (an MP4's `colr` box).
    init(decoder: CodecContext, stream: StreamDescription) {
        var transfer = decoder.colourTransfer, primaries = decoder.colourPrimaries
        if transfer == AVCOL_TRC_UNSPECIFIED { transfer = stream.colourTransfer }
        if primaries == AVCOL_PRI_UNSPECIFIED { primaries = stream.colourPrimaries }
        self.init(transfer, primaries)
    }

    /// FFmpeg's names of `transfer` and `primaries` (nil for unspecified), HDR for PQ or HLG.
    init(_ transfer: AVColorTransferCharacteristic, _ primaries: AVColorPrimaries) {
        self.init(transfer: transfer == AVCOL_TRC_UNSPECIFIED ? nil : av_color_transfer_name(transfer).map { String(cString: $0) },
                  primaries: primaries == AVCOL_PRI_UNSPECIFIED ? nil : av_color_primaries_name(primaries).map { String(cString: $0) },
                  isHDR: HDRToneMapper.isHDR(transfer))
    }
}
