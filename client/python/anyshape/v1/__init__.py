"""The wire format (graph_pb2) and the service stubs (service_pb2,
service_pb2_grpc), generated from proto/anyshape/v1 at build time."""
