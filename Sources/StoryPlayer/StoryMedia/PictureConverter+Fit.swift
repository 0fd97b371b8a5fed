import Compositor

extension PictureConverter {
    /// The picture as `fit` shows it on a `width`×`height` screen: covering it (`rgba`), or
    /// converted whole at its own shape's size (`RoomLayout.fitted`) and framed there
    /// (`PictureFit.framed`: over black bars, or over a blurred copy of itself).
    package func rgba(_ picture: DecodedPicture, fit: PictureFit, width: Int, height: Int,
                      reusing spare: consuming RGBAImage? = nil) throws(MediaError) -> RGBAImage {
        guard fit != .cover else { return try rgba(picture, width: width, height: height, reusing: spare) }
        let size = RoomLayout.fitted(picture.shownSize, within: (width, height))
        return fit.framed(try rgba(picture, width: size.width, height: size.height, reusing: spare), width: width, height: height)
    }
}
