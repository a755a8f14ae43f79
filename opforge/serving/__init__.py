"""`opforge serve`: a model server with TensorFlow Serving's interfaces.

The layers follow TensorFlow Serving's: a manager (manager.py) watches each model's base path
for numeric version folders and loads the versions its policy wants as servables
(servable.py: a loaded SavedModel whose signatures run, directly or through a batch scheduler,
batching.py), loading a new version before unloading the old one and unloading only after the
requests holding the old one finish. predictor.py answers requests in TensorFlow Serving's
terms (Predict, Classify, Regress, GetModelMetadata, GetModelStatus) over NumPy arrays and
protos, whatever the transport; grpc_service.py (grpcio, the tensorflow.serving services) and
rest_service.py (waitress, TensorFlow Serving's REST API and JSON encoding, json_codec.py)
are the transports; server.py wires them and holds `opforge serve`'s flags
(tensorflow_model_server's spelling, config.py reads its config files).
"""

from .config import BatchingOptions, ServerOptions
from .manager import ModelManager
from .server import Server, main

__all__ = ["BatchingOptions", "ModelManager", "Server", "ServerOptions", "main"]
