"""Program-side ``shutil``: importable, empty. Training scripts import it beside ``os`` for their
checkpoint folders (y0ast/Glow-PyTorch's train.py); programs have no files, so its functions
(``copy``, ``rmtree``, ``move``, ...) do not exist here, and reaching one says where files go instead."""

__all__ = []
