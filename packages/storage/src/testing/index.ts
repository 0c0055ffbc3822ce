export { type S3Stub, type S3StubObject, type S3StubOptions, startS3Stub } from "./s3-stub.ts";
