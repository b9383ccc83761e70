"""Design mode's widgets: the editor's render view, its Shapes and Layers docks, and the
live-count badge. The document itself is `tessera.models.design`, the editor's scene is
`tessera.viewer.scenes.design`."""
