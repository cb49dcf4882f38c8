import { Field, ID, InputType, Int, ObjectType } from '@nestjs/graphql';
import { IsIn, IsInt, IsOptional, IsString, Length, Matches, Max, Min } from 'class-validator';
import { ROLES, type Role } from '@lunanexa/contracts';
import { RoleValues } from './role.enum';

export const API_TOKEN_MAX_DAYS = 365;

@ObjectType({ description: 'An API token, without its secret (shown once, at creation).' })
export class ApiToken {
  @Field(() => ID)
  id!: string;

  @Field()
  name!: string;

  @Field({ description: 'The first characters of the token (`lnx_` + 8), to recognise it.' })
  prefix!: string;

  @Field(() => RoleValues, {
    description: "At most the owner's role; never more than the owner's current role.",
  })
  role!: Role;

  @Field(() => ID)
  ownerId!: string;

  @Field()
  ownerUsername!: string;

  @Field()
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'Null: does not expire.' })
  expiresAt!: Date | null;

  @Field(() => Date, { nullable: true })
  revokedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'Last use, to the minute.' })
  lastUsedAt!: Date | null;
}

@InputType({ description: 'A new API token owned by the caller.' })
export class CreateApiTokenInput {
  @Field({ description: 'What it is for, 1-100 characters.' })
  @IsString()
  @Length(1, 100)
  @Matches(/^[^\p{Cc}]+$/u, { message: 'name must not contain control characters' })
  name!: string;

  @Field(() => RoleValues, {
    nullable: true,
    description: "Defaults to the caller's role; may not exceed it.",
  })
  @IsOptional()
  @IsIn(ROLES)
  role?: Role | null;

  @Field(() => Int, {
    nullable: true,
    description: `1-${API_TOKEN_MAX_DAYS}; omitted: the token does not expire.`,
  })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(API_TOKEN_MAX_DAYS)
  expiresInDays?: number | null;
}

@ObjectType({ description: 'A new API token. `token` is shown only here: store it now.' })
export class CreateApiTokenResult {
  @Field({ description: 'Send as `Authorization: Bearer <token>`.' })
  token!: string;

  @Field(() => ApiToken)
  apiToken!: ApiToken;
}
