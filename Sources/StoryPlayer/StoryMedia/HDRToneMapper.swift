internal import CFFmpeg
import StoryModel

/// Turns HDR video pictures (HLG or PQ, BT.2020) into BT.709 SDR before they are scaled: a
/// libavfilter chain of `zscale` (to linear light, then to BT.709 primaries), `tonemap` (the
/// item's curve) and `zscale` (to BT.709's transfer), out as 8-bit planar RGB.
///
/// One per converter, on its thread, and on that thread alone (no slice threads of its own): the
/// decoder's frame threads and the render already keep the cores busy, and so the filters' time
/// is the convert stage's (`stages_ms.convert`). It builds its graph only when an HDR picture comes, so an
/// SDR picture costs one comparison of its transfer and nothing else; the graph is rebuilt only
/// if the pictures' size, format or colour change mid-stream.
final class HDRToneMapper {
    /// The curve HDR pictures are tone-mapped with.
    var curve: ToneMapCurve = .hable
    private var graph: FilterGraph?
    /// What the current graph was built for.
    private var builtFor: Shape?
    /// The tone-mapped picture, reused from one picture to the next.
    private var output: Frame?

    init() {}

    /// Frees the graph and its picture now.
    func close() {
        graph?.close()
        graph = nil
        builtFor = nil
        output?.close()
        output = nil
    }

    deinit { close() }

    // MARK: - Which pictures

    /// Whether a picture's transfer is one of HDR's: PQ (SMPTE ST 2084) or HLG (ARIB STD-B67).
    /// A Dolby Vision profile 8.4 file from an iPhone is HEVC whose base layer says HLG, so it is
    /// one of these too (FFmpeg 5.1 skips its enhancement data, NAL types 62 and 63).
    static func isHDR(_ transfer: AVColorTransferCharacteristic) -> Bool {
        transfer == AVCOL_TRC_SMPTE2084 || transfer == AVCOL_TRC_ARIB_STD_B67
    }

    // MARK: - Tone mapping

    /// `picture` itself when it is SDR; else its tone-mapped copy (8-bit `gbrp`, BT.709), which
    /// stays valid until the next call.
    func toneMapped(_ picture: Frame) throws(MediaError) -> Frame {
        guard HDRToneMapper.isHDR(picture.colourTransfer) else { return picture }
        let shape = Shape(picture, curve: curve)
        if graph == nil || builtFor != shape {
            graph?.close()
            graph = nil
            graph = try FilterGraph(filters: HDRToneMapper.filters(for: shape), width: shape.width, height: shape.height,
                                    pixelFormat: shape.format, sampleAspectRatio: picture.sampleAspectRatio,
                                    threads: 1)
            builtFor = shape
        }
        let target = output ?? Frame()
        output = target
        guard let graph else { preconditionFailure("a tone mapper has its graph") }
        try graph.filter(picture, into: target)
        return target
    }

    /// The filter chain for pictures of `shape`: the input's colour is named from the picture
    /// (BT.709, Display P3 as an HDR HEIF may say, else BT.2020, also where it says nothing), so
    /// `zscale` never has to guess it. `npl=100` puts SDR white at 100 nits; `desat=0` keeps
    /// colours saturated (the tonemap filter's default greys bright colours); no dithering, as
    /// `zscale`'s default.
    static func filters(for shape: Shape) -> String {
        let transfer = shape.transfer == AVCOL_TRC_SMPTE2084 ? "smpte2084" : "arib-std-b67"
        let primaries = switch shape.primaries {
        case AVCOL_PRI_BT709: "709"
        case AVCOL_PRI_SMPTE432: "smpte432"
        default: "2020"
        }
        let matrix = switch shape.matrix {
        case AVCOL_SPC_BT709: "709"
        case AVCOL_SPC_BT2020_CL: "2020_cl"
        case AVCOL_SPC_SMPTE170M, AVCOL_SPC_BT470BG: "170m"
        default: "2020_ncl"
        }
        let range = shape.fullRange ? "pc" : "tv"
        // `p` too: zscale's output keeps the frame's own primaries otherwise, and a picture that
        // names none would leave the next zscale nothing to convert from.
        return "zscale=tin=\(transfer):pin=\(primaries):min=\(matrix):rin=\(range):t=linear:npl=100:p=\(primaries),format=gbrpf32le,"
            + "zscale=p=709,tonemap=tonemap=\(shape.curve.rawValue):desat=0,zscale=t=709,format=gbrp"
    }

    /// What a graph is built for: pictures that differ in any of these need another.
    struct Shape: Equatable {
        let width: Int32, height: Int32, format: Int32
        let transfer: AVColorTransferCharacteristic
        let primaries: AVColorPrimaries
        let matrix: AVColorSpace
        let fullRange: Bool
        let curve: ToneMapCurve

        init(_ picture: Frame, curve: ToneMapCurve) {
            width = picture.width
            height = picture.height
            format = picture.format
            transfer = picture.colourTransfer
            primaries = picture.colourPrimaries
            matrix = picture.colourSpace
            fullRange = picture.colourRange == AVCOL_RANGE_JPEG
            self.curve = curve
        }
    }
}
