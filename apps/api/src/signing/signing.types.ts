import { Field, InputType, ObjectType } from '@nestjs/graphql';
import { Allow } from 'class-validator';

@ObjectType({
  description:
    'An Ed25519 public key an admin trusts to sign model artifacts. A version whose provenance signature names it verifies only while it is not revoked.',
})
export class TrustedSigningKey {
  @Field({
    description: "Fingerprint: 'ed25519:' + the first 32 hex digits of sha256 over the raw public key.",
  })
  keyId!: string;

  @Field({ description: 'Always ed25519.' })
  algorithm!: string;

  @Field({ description: 'Base64 of the raw 32-byte public key.' })
  publicKey!: string;

  @Field({ description: 'What the key is for, e.g. the CI pipeline that holds it.' })
  label!: string;

  @Field()
  createdBy!: string;

  @Field()
  createdAt!: string;

  @Field(() => String, { nullable: true, description: 'When it was revoked; null while trusted.' })
  revokedAt!: string | null;

  @Field(() => String, { nullable: true })
  revokedBy!: string | null;
}

@InputType()
export class RegisterSigningKeyInput {
  @Allow()
  @Field({
    description:
      'The Ed25519 public key: base64 of the raw 32 bytes, or a PEM SubjectPublicKeyInfo (`lunanexa signing-key generate` writes one).',
  })
  publicKey!: string;

  @Allow()
  @Field({ description: '1-200 characters, no control characters.' })
  label!: string;
}

@ObjectType({ description: "A tenant's artifact-signature policy." })
export class TenantSigningPolicy {
  @Field()
  tenantId!: string;

  @Field({
    description:
      'Whether versions without a provenance signature may be rolled out onto aliases this tenant’s gateway keys call (UNSIGNED_VERSION_NOT_ALLOWED otherwise).',
  })
  allowUnsignedVersions!: boolean;
}
